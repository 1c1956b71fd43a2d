// The server under test in its own process: HTTP on loopback and its forwarder's link to the bridge, a session of
// ten messages to read, and paired devices whose tokens the apps use: plain ones, and as many paired with the
// encrypting apps' public key (end-to-end encryption; seed.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../../server/config/load.ts";
import { startForwarder } from "../../../server/forwarder/forwarder.ts";
import { createRuntime } from "../../../server/runtime.ts";
import { phaseMeter } from "../fanout/protocol.ts";
import { runRelayedCall } from "../../../server/forwarder/api-relay.ts";
import { withJsonBody } from "../../../server/forwarder/json-text.ts";
import { cipherCostUs, cipherInPlaceUs, sealedCallJson } from "./cipher-cost.ts";
import { gcMeter } from "./gc-meter.ts";
import { threadMeter } from "./thread-meter.ts";
import { answerSeams, toServer } from "./protocol.ts";
import { pairDevices, seedSession } from "./seed.ts";

const dataDir = mkdtempSync(join(tmpdir(), "bench-relay-server-"));
const runtime = createRuntime({
  config: parseConfig({ server: { server_id: "bench" } }),
  dataDir,
  adminToken: "bench-admin-token",
});
const url = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
const { ctx } = runtime;
const meter = phaseMeter();
const garbage = gcMeter();
const threads = threadMeter();
/** The replay guard's floor writes (one per turn with fresh sealed calls): how many calls shared a turn. */
let floorWrites = 0;
const { calls: guard } = ctx.e2e;
const writeFloors = guard.flush.bind(guard);
guard.flush = () => (floorWrites++, writeFloors());
const send = (message: unknown) => process.send!(message);
let stopForwarder: (() => Promise<void>) | undefined;
/** The session's path and an encrypting device with its public key: what the cipher's own cost is measured on. */
let sample: { path: string; deviceId: string; deviceKey: string } | undefined;

function seed(devices: number, deviceKey: string) {
  const path = seedSession(ctx);
  const tokens = pairDevices(ctx, devices, "app").map((device) => device.token);
  const e2e = { server_key: ctx.e2e.publicKey, devices: pairDevices(ctx, devices, "e2e app", deviceKey) };
  return { path, tokens, e2e };
}

/**
 * The cipher's own cost, `batches` figures, and as many of its cost beside the route (cipher-cost.ts): the call an
 * encrypting app makes and its answer.
 */
async function cipherCost(batches: number): Promise<{ alone: number[]; inPlace: number[] }> {
  if (!sample) throw new Error("the server child was not started");
  const { path, deviceId, deviceKey } = sample;
  const call = { request_id: "x".repeat(24), device_id: deviceId, method: "GET" as const, path };
  const { request_id: _id, ...answer } = (await runRelayedCall(ctx, runtime.app, call))!;
  const cipherSample = {
    key: ctx.e2e.relayKey(deviceKey),
    serverId: ctx.serverId,
    deviceId,
    callJson: sealedCallJson(path),
    answerJson: withJsonBody(answer),
  };
  const inPlace = await cipherInPlaceUs(cipherSample, () => runRelayedCall(ctx, runtime.app, call), batches);
  return { alone: cipherCostUs(cipherSample, batches), inPlace };
}

process.on("message", (message) => {
  const parsed = toServer.parse(message);
  if (answerSeams(parsed, send)) return;
  if (parsed.type === "phase") return void (meter.reset(), garbage.reset(), threads.reset(), (floorWrites = 0));
  if (parsed.type === "stats")
    return send({
      type: "stats",
      stats: meter.read(),
      gc: garbage.read(),
      threads: threads.read(),
      floor_writes: floorWrites,
    });
  if (parsed.type === "cipher")
    return void cipherCost(parsed.batches).then(({ alone, inPlace }) =>
      send({ type: "cipher", us_per_call: alone, in_place_us_per_call: inPlace }),
    );
  if (parsed.type !== "start") return;
  const { path, tokens, e2e } = seed(parsed.devices, parsed.device_key);
  sample = { path, deviceId: e2e.devices[0]!.device_id, deviceKey: parsed.device_key };
  const forwarder = startForwarder(ctx, { bridgeUrl: parsed.bridge_url, app: runtime.app });
  stopForwarder = () => forwarder.stop();
  send({ type: "ready", url, server_id: ctx.serverId, path, tokens, e2e });
});
process.on(
  "disconnect",
  () =>
    void (async () => {
      await stopForwarder?.();
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    })(),
);
