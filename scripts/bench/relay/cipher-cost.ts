// The cipher's own cost of one sealed relayed call on the server (docs/benchmarks.md "Sealed relay"): opening the
// call and sealing its answer, the library's openRequest and sealResponse with the seams in use, on the very call
// and answer the benchmark's apps make (the same key, the same sizes, a call id as long as theirs), timed alone in the
// server's process in the same run. The floor compares what a sealed call costs the server beyond a plain one with
// this figure. relay.ts takes a few batches after every measured phase and uses their median: the load of a shared
// machine drifts, and batches spread over the run see the load the phases saw, where batches taken once at the end
// saw only that moment's (one run's figure swung from 18 to 39 µs with it). A second figure, printed beside the floor
// and labelled as not its figure: the cipher's cost beside the route (cipherInPlaceUs), which the warm loop leaves out.
import { openRequest, sealRequest, sealResponse } from "../../../client/wire/crypto/index.ts";

/** What one sealed call's crypto works on: the call's JSON and its answer's, as the server seals them. */
export interface CipherSample {
  key: Uint8Array;
  serverId: string;
  deviceId: string;
  callJson: string;
  answerJson: string;
}

const CALLS_PER_BATCH = 500;

/** The ids the library draws (client/transport/sealed-relay.ts: 18 random bytes in base64url), bound into each seal. */
export const CALL_ID = "x".repeat(24);

/** CPU µs (user + system) per call of open + seal, one figure per batch, after one batch to warm up. */
export function cipherCostUs(sample: CipherSample, batches: number): number[] {
  return aloneUs(sealedCallWork(sample), batches);
}

/** The server's crypto for one sealed call of `sample`: open the app's sealed call, seal the answer. */
export function sealedCallWork(sample: CipherSample): () => void {
  const { key, serverId, deviceId, callJson, answerJson } = sample;
  const sealedCall = sealRequest(key, serverId, deviceId, callJson);
  return () => {
    openRequest(key, serverId, deviceId, sealedCall);
    sealResponse(key, serverId, deviceId, CALL_ID, answerJson);
  };
}

/** CPU µs (user + system) per run of `work` in a warm loop, one figure per batch, after one batch to warm up. */
export function aloneUs(work: () => void, batches: number): number[] {
  const batch = () => {
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS_PER_BATCH; i++) work();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / CALLS_PER_BATCH;
  };
  batch();
  return Array.from({ length: batches }, batch);
}

/** Calls per batch beside the route: each runs a plain relayed call too (~0.1 ms), so fewer than alone. */
const CALLS_IN_PLACE = 200;

/**
 * A second figure, not the floor's: the cipher's cost beside the route, CPU µs per call. Batches of plain relayed
 * calls run in-process (`route`), in pairs: one with openRequest and sealResponse after each call, one without; one
 * figure per pair, their difference. Where the warm loop frees each buffer just before the next one is asked for,
 * here the cipher's buffers and native objects are freed among the route's allocations, as in a sealed call.
 */
export async function cipherInPlaceUs(
  sample: CipherSample,
  route: () => Promise<unknown>,
  pairs: number,
): Promise<number[]> {
  return inPlaceUs(sealedCallWork(sample), route, pairs);
}

/** CPU µs per run of `work` beside `route`: paired batches of the route with and without it (cipherInPlaceUs). */
export async function inPlaceUs(work: () => void, route: () => Promise<unknown>, pairs: number): Promise<number[]> {
  const batch = async (withWork: boolean) => {
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS_IN_PLACE; i++) {
      await route();
      if (withWork) work();
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / CALLS_IN_PLACE;
  };
  await batch(true);
  const figures: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    // Which batch goes first alternates, so neither gains from its place.
    const first = pair % 2 === 0;
    const a = await batch(first);
    const b = await batch(!first);
    figures.push(first ? a - b : b - a);
  }
  return figures;
}

/** The call's JSON as an encrypting app seals it (SealedRelayChannel: id, time, then the push's method and path). */
export function sealedCallJson(path: string): string {
  return JSON.stringify({ id: CALL_ID, ts: Date.now(), method: "GET", path });
}
