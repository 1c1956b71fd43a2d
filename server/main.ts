// `npm run server`: reads the environment and config, starts the HTTP server, stops cleanly on SIGINT/SIGTERM.
import { ConfigError, loadConfig, readEnvironment } from "./config/load.ts";
import { processLog } from "./log.ts";
import { createRuntime } from "./runtime.ts";

async function main(): Promise<void> {
  const env = readEnvironment();
  const { config, baseDir } = loadConfig(env.configPath);
  const log = processLog({ level: process.env.LOG_LEVEL ?? "info" });
  const runtime = createRuntime({ config, configDir: baseDir, dataDir: env.dataDir, adminToken: env.adminToken, bridgeUrl: env.bridgeUrl, serverUrl: env.serverUrl, host: env.host, bridgePublicUrl: env.bridgePublicUrl, log });
  if (runtime.generatedAdminToken) {
    // Printed once: only its hash is kept in DATA_DIR.
    process.stdout.write(`admin token (shown once, stored hashed in ${env.dataDir}): ${runtime.generatedAdminToken}\n`);
  }
  const address = await runtime.app.listen({ host: env.host, port: env.port });
  process.stdout.write(`server listening on ${address} (server_id ${runtime.ctx.serverId})\n`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    try {
      await runtime.close();
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`server failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
