// The server's sealed path alone, in one process (docs/benchmarks.md "Sealed relay"): relayed calls run through the
// forwarder's runRelayedCall as the bridge's frames hand them over, `--per-turn` started together as at 50 apps,
// plain calls (one device each) and sealed ones (encrypting devices, sealed as the library's apps seal them) in
// alternating batches. It prints CPU µs per call of each kind (medians of the batches), what a sealed call costs
// beyond a plain one (the median of the pairs' differences: the floor's numerator without the bridge and the frames),
// and the cipher's own cost in a warm loop (cipher-cost.ts, the floor's denominator). `--only plain|sealed` runs one
// kind for a profile (`node --cpu-prof`). No bridge, no sockets: what is left is the server's own work.
// Usage: node --import tsx scripts/bench/sealed-path.ts [--pairs 15] [--batch 400] [--per-turn 20] [--held 2000]
// [--only sealed]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPair, sealRequest } from "../../client/wire/crypto/index.ts";
import { E2E_RELAY_PATH } from "../../client/wire/e2e.ts";
import { parseConfig } from "../../server/config/load.ts";
import { runRelayedCall } from "../../server/forwarder/api-relay.ts";
import { withJsonBody } from "../../server/forwarder/json-text.ts";
import { createRuntime } from "../../server/runtime.ts";
import { IDS_PER_DEVICE } from "../../server/e2e/replay-guard.ts";
import { benchOptions } from "./options.ts";
import { cipherCostUs, sealedCallJson } from "./relay/cipher-cost.ts";
import { pairDevices, seedSession } from "./relay/seed.ts";
import { median } from "./stats.ts";

const options = benchOptions({ "pairs": 15, "batch": 400, "per-turn": 20, "held": IDS_PER_DEVICE, "only": "" });
const perTurn = options["per-turn"];

const dataDir = mkdtempSync(join(tmpdir(), "bench-sealed-path-"));
const runtime = createRuntime({
  config: parseConfig({ server: { server_id: "bench" } }),
  dataDir,
  adminToken: "bench-admin-token",
});
await runtime.app.ready();
const { ctx } = runtime;
const path = seedSession(ctx);
const appKeys = generateKeyPair();
const plainDevices = pairDevices(ctx, perTurn, "app");
const sealedDevices = pairDevices(ctx, perTurn, "e2e app", appKeys.publicKey);
const key = ctx.e2e.relayKey(appKeys.publicKey);

let serial = 0;
/** A fresh id as long as the library's (24 characters): the replay guard holds each one. */
const nextId = () => `call${String(serial++).padStart(20, "0")}`;

function plainCalls(): unknown[] {
  return Array.from({ length: options.batch }, (_, i) => ({
    request_id: nextId(),
    device_id: plainDevices[i % perTurn]!.device_id,
    method: "GET",
    path,
  }));
}

function sealedCalls(): unknown[] {
  return Array.from({ length: options.batch }, (_, i) => {
    const deviceId = sealedDevices[i % perTurn]!.device_id;
    const inner = JSON.stringify({ id: nextId(), ts: serial, method: "GET", path });
    const body = sealRequest(key, ctx.serverId, deviceId, inner);
    return { request_id: nextId(), device_id: deviceId, method: "POST", path: E2E_RELAY_PATH, body };
  });
}

/**
 * Each encrypting device as one that has made `--held` calls already (by default as many as the replay guard holds,
 * its steady state; the relay benchmark's devices make ~100 each), straight through the real guard.
 */
function holdCalls(): void {
  for (const { device_id } of sealedDevices)
    for (let i = 0; i < options.held; i++) ctx.e2e.calls.check(device_id, nextId(), serial);
  ctx.e2e.calls.flush();
}

/** CPU µs (user + system) per call: `perTurn` calls started in one turn and awaited together, then the next ones. */
async function timed(calls: unknown[]): Promise<number> {
  const start = process.cpuUsage();
  for (let at = 0; at < calls.length; at += perTurn) {
    const turn = calls.slice(at, at + perTurn).map((call) => runRelayedCall(ctx, runtime.app, call));
    for (const result of await Promise.all(turn))
      if (!result || !("status" in result) || result.status !== 200) throw new Error(JSON.stringify(result));
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls.length;
}

/** Both kinds, `pairs` times, which goes first alternating so neither gains from its place. */
async function pairedRuns(batches: Array<{ plain: unknown[]; sealed: unknown[] }>) {
  const plain: number[] = [];
  const sealed: number[] = [];
  for (const [pair, batch] of batches.entries()) {
    if (pair % 2 === 0) plain.push(await timed(batch.plain));
    sealed.push(await timed(batch.sealed));
    if (pair % 2 === 1) plain.push(await timed(batch.plain));
  }
  return { plain, sealed };
}

/** The cipher alone on this call and its answer, as relay.ts measures it (the floor's denominator). */
async function cipherAloneUs(): Promise<number> {
  const call = { request_id: nextId(), device_id: plainDevices[0]!.device_id, method: "GET", path };
  const { request_id: _id, ...answer } = (await runRelayedCall(ctx, runtime.app, call))!;
  const sample = {
    key,
    serverId: ctx.serverId,
    deviceId: sealedDevices[0]!.device_id,
    callJson: sealedCallJson(path),
    answerJson: withJsonBody(answer),
  };
  return median(cipherCostUs(sample, 7));
}

holdCalls();
// Every batch is made up front: sealing calls between timed batches would leave the apps' garbage to the next
// timed batch's scavenges.
const [warmup, ...batches] = Array.from({ length: options.pairs + 1 }, () => ({
  plain: plainCalls(),
  sealed: sealedCalls(),
}));
await timed(warmup!.plain);
await timed(warmup!.sealed);
if (options.only) {
  for (const batch of batches) await timed(options.only === "sealed" ? batch.sealed : batch.plain);
} else {
  const { plain, sealed } = await pairedRuns(batches);
  const extra = median(plain.map((us, i) => sealed[i]! - us));
  const cipher = await cipherAloneUs();
  const round = (us: number) => Math.round(us * 100) / 100;
  console.log(
    JSON.stringify({
      bench: "sealed-path",
      per_turn: perTurn,
      held: options.held,
      plain_us_per_call: round(median(plain)),
      sealed_us_per_call: round(median(sealed)),
      sealed_extra_us: round(extra),
      cipher_alone_us: round(cipher),
      extra_per_cipher: round(extra / cipher),
    }),
  );
}
await runtime.close();
rmSync(dataDir, { recursive: true, force: true });
