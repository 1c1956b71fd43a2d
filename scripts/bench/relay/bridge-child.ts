// The bridge under test in its own process, its relay bounds lifted (the benchmark measures cost, not limits).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loggerFrom } from "../../../bridge/log.ts";
import { startBridge } from "../../../bridge/bridge.ts";
import { defaultBridgeConfig } from "../../../bridge/config.ts";
import { phaseMeter } from "../fanout/protocol.ts";
import { answerMeter, toBridge } from "./protocol.ts";

export const RELAY_BOUNDS = { perSocketPerSecond: 1_000_000, perServerPerSecond: 1_000_000, inFlightPerServer: 10_000 };

const dataDir = mkdtempSync(join(tmpdir(), "bench-relay-bridge-"));
const bridge = await startBridge({
  config: defaultBridgeConfig({ port: 0, dataDir, relay: RELAY_BOUNDS }),
  log: loggerFrom(() => undefined),
});
const meter = phaseMeter();
const send = (message: unknown) => process.send!(message);

process.on("message", (message) => {
  const parsed = toBridge.parse(message);
  if (answerMeter(parsed, meter, send) || parsed.type !== "known") return;
  send({ type: "known", count: parsed.token_hashes.filter((hash) => bridge.core.registry.knowsToken(hash)).length });
});
process.on(
  "disconnect",
  () =>
    void bridge.close().then(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }),
);
send({ type: "ready", url: bridge.url });
