// The cipher's own cost of one sealed relayed call on the server (docs/benchmarks.md "Sealed relay"): opening the
// call and sealing its answer, the library's openRequest and sealResponse with the seams in use, on the very call
// and answer the benchmark's apps make, timed alone in the server's process in the same run. The floor compares
// what a sealed call costs the server beyond a plain one with this figure.
import { openRequest, sealRequest, sealResponse } from "../../../client/wire/crypto/index.ts";
import { median } from "../stats.ts";

/** What one sealed call's crypto works on: the call's JSON and its answer's, as the server seals them. */
export interface CipherSample {
  key: Uint8Array;
  serverId: string;
  deviceId: string;
  callJson: string;
  answerJson: string;
}

const BATCHES = 7;
const CALLS_PER_BATCH = 500;

/** CPU µs (user + system) per call of open + seal: the median of a few batches, after one batch to warm up. */
export function cipherCostUs(sample: CipherSample): number {
  const { key, serverId, deviceId, callJson, answerJson } = sample;
  const sealedCall = sealRequest(key, serverId, deviceId, callJson);
  const batch = () => {
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS_PER_BATCH; i++) {
      openRequest(key, serverId, deviceId, sealedCall);
      sealResponse(key, serverId, deviceId, "call-id-of-22-chars-xx", answerJson);
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / CALLS_PER_BATCH;
  };
  batch();
  return median(Array.from({ length: BATCHES }, batch));
}
