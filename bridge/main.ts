// `npm run bridge`: reads the environment, listens on ws://HOST:BRIDGE_PORT/socket, stops on SIGINT/SIGTERM with
// close code 1001 so every app and server reconnects once a bridge is back.
import { startBridge } from "./bridge.ts";
import { loadBridgeConfig } from "./config.ts";
import { processLog } from "./log.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadBridgeConfig();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const log = processLog({ level: process.env.LOG_LEVEL === "debug" ? "debug" : "info" });
  const bridge = await startBridge({ config, log });
  // One write: a reader that closes the pipe once it has read the first line must not meet a second, unguarded write.
  process.stdout.write(
    `bridge listening on ${bridge.url} (health and metrics on ${bridge.httpUrl})\n` +
      `the app for phones that reach only the bridge: ${bridge.appUrl} (endpoint ${bridge.publicUrl})\n`,
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    await bridge.close();
    process.exit(0);
  };
  const onSignal = (signal: string) =>
    stop(signal).catch((error: unknown) => {
      process.stderr.write(
        `bridge failed to stop cleanly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    });
  process.on("SIGINT", () => void onSignal("SIGINT"));
  process.on("SIGTERM", () => void onSignal("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bridge failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
