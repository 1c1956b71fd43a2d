// A cluster node in a process of its own, so a test can SIGKILL it (no close, no link released: its links lapse).
// argv[2]: the BridgeConfig overrides as JSON; prints "listening <port>" once it accepts connections.
import { startBridge } from "../../bridge/bridge.ts";
import { defaultBridgeConfig } from "../../bridge/config.ts";
import { MemoryLogger } from "../support/memory-logger.ts";

const overrides = JSON.parse(process.argv[2] ?? "{}") as Parameters<typeof defaultBridgeConfig>[0];
const bridge = await startBridge({ config: defaultBridgeConfig(overrides), log: new MemoryLogger(), sweepEveryMs: 0 });
process.stdout.write(`listening ${bridge.port}\n`);
