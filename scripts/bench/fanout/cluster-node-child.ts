// One bridge node for the cluster fan-out benchmark, in its own process: argv[2] is its BridgeConfig overrides as
// JSON (with cluster.redisUrl: a cluster node; without: the single node). Answers how many devices it knows for
// the bench server (apps may join only once their node has the grants).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { startBridge } from "../../../bridge/bridge.ts";
import { defaultBridgeConfig } from "../../../bridge/config.ts";
import { processLog } from "../../../bridge/log.ts";

const overrides = JSON.parse(process.argv[2] ?? "{}") as Record<string, unknown>;
const bridge = await startBridge({
  config: defaultBridgeConfig({ port: 0, dataDir: mkdtempSync(join(tmpdir(), "bench-node-")), ...overrides }),
  log: processLog({ level: "error" }),
});
const query = z.object({ type: z.literal("devices") });

process.on("message", (message) => {
  if (!query.safeParse(message).success) return;
  process.send!({ type: "devices", count: bridge.core.registry.get("bench")?.devices.size ?? 0 });
});
process.send!({ type: "ready", url: bridge.url });
process.on("disconnect", () => void bridge.close().then(() => process.exit(0)));
