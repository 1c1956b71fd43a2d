// `npm run server`: reads the environment and config, starts the HTTP server, stops cleanly on SIGINT/SIGTERM.
// Once listening it writes DATA_DIR/local-admin.json (auth/local-admin.ts) and, when `npm start` runs it, tells the
// supervisor where it listens (an IPC message), so the first-run link is made as soon as the server answers.
import type { AddressInfo } from "node:net";
import { readAdminTokenHash, RELOAD_ADMIN_TOKEN_SIGNAL } from "./auth/admin-token.ts";
import { removeLocalAdmin, writeLocalAdmin } from "./auth/local-admin.ts";
import { ConfigError, loadConfig, readEnvironment } from "./config/load.ts";
import { processLog } from "./log.ts";
import { createRuntime } from "./runtime.ts";

/** What the server tells `npm start` (scripts/start.ts) over IPC once it listens. */
export interface ListeningMessage {
  type: "server_listening";
  /** Where this machine reaches the server: loopback when HOST is a wildcard. */
  url: string;
  server_id: string;
}

async function main(): Promise<void> {
  const env = readEnvironment();
  const { config, baseDir } = loadConfig(env.configPath);
  const log = processLog({ level: process.env.LOG_LEVEL ?? "info" });
  const runtime = createRuntime({
    config,
    configDir: baseDir,
    dataDir: env.dataDir,
    adminToken: env.adminToken,
    bridgeUrl: env.bridgeUrl,
    serverUrl: env.serverUrl,
    host: env.host,
    bridgePublicUrl: env.bridgePublicUrl,
    log,
  });
  if (runtime.generatedAdminToken) {
    // Printed once: only its hash is kept in DATA_DIR.
    process.stdout.write(`admin token (shown once, stored hashed in ${env.dataDir}): ${runtime.generatedAdminToken}\n`);
  }
  const address = await runtime.app.listen({ host: env.host, port: env.port });
  const localUrl = loopbackUrl(env.host, (runtime.app.server.address() as AddressInfo).port);
  writeLocalAdmin(env.dataDir, {
    url: localUrl,
    token: runtime.localAdminToken,
    pid: process.pid,
    admin_token_from_environment: env.adminToken !== undefined,
  });
  // After the local file: whoever waits for this line finds the file in place.
  process.stdout.write(`server listening on ${address} (server_id ${runtime.ctx.serverId})\n`);
  const listening: ListeningMessage = { type: "server_listening", url: localUrl, server_id: runtime.ctx.serverId };
  process.send?.(listening);
  // `npm run admin-token -- --reset` wrote a new hash: the old token stops working now, not at the next start.
  process.on(RELOAD_ADMIN_TOKEN_SIGNAL, () => {
    const hash = env.adminToken === undefined ? readAdminTokenHash(env.dataDir) : undefined;
    if (hash === undefined) return;
    runtime.ctx.auth.setAdminTokenHash(hash);
    log.info({ signal: RELOAD_ADMIN_TOKEN_SIGNAL }, "admin token replaced");
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down");
    removeLocalAdmin(env.dataDir);
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

/** The URL this machine dials to reach a server listening on `host`: a wildcard is reached on loopback. */
function loopbackUrl(host: string, port: number): string {
  if (host === "0.0.0.0" || host === "") return `http://127.0.0.1:${port}`;
  if (host === "::" || host === "[::]") return `http://[::1]:${port}`;
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `server failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
