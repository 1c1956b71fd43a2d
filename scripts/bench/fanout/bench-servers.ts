// The chat servers of a fan-out benchmark, in the parent process: each a real runtime (SQLite store, pairing) with
// `devices` paired device tokens and its forwarder joined to the bridge. A bridge relays for many servers, and one
// server's grants must fit one frame (10,000 device grants are ~1.35 MB, over the 1 MiB frame bound), so a large
// benchmark spreads its sockets over several servers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { parseConfig } from "../../../server/config/load.ts";
import { startForwarder, type Forwarder } from "../../../server/forwarder/forwarder.ts";
import { createRuntime } from "../../../server/runtime.ts";
import { sleep } from "./processes.ts";
import { wallNow } from "./protocol.ts";

const PAD = "x".repeat(110);

export interface BenchServer {
  readonly id: string;
  readonly topic: string;
  readonly tokens: readonly string[];
  /** Publishes one benchmark event into the store (stamped `sent_at` at commit); the forwarder relays it. */
  publish(): void;
  close(): Promise<void>;
}

/**
 * `audiences: false` links without audiences (the base protocol: every device gets every event) for the comparison
 * with audiences, where every event's audience is the one person who owns every device (it holds every socket).
 */
export function startBenchServer(id: string, devices: number, bridgeUrl: string, audiences = true): BenchServer {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-server-"));
  const runtime = createRuntime({
    config: parseConfig({ server: { server_id: id } }),
    dataDir,
    adminToken: "bench-admin",
    log: pino({ level: "silent" }),
  });
  const { ctx } = runtime;
  const tokens: string[] = [];
  for (let i = 0; i < devices; i++) {
    const redeemed = ctx.pairing.redeem(ctx.pairing.createCode().code, `bench-${i}`);
    if (redeemed.ok) tokens.push(redeemed.device_token);
  }
  // The events belong to a chat of the one person (Owner), who owns every device: each goes to every socket.
  const chat = ctx.sessions.create("default").id;
  const forwarder: Forwarder = startForwarder(ctx, { bridgeUrl, audiences });
  return {
    id,
    topic: `events:server:${id}`,
    tokens,
    publish: () => void ctx.events.publish({ type: "bench", session_id: chat, sent_at: wallNow(), pad: PAD }),
    async close() {
      await forwarder.stop();
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until the bridge's /metrics says `servers` are connected, then a moment for their grants pushes to land. */
export async function untilServersJoined(bridgeUrl: string, servers: number): Promise<void> {
  const metricsUrl = `${bridgeUrl.replace("ws://", "http://").replace(/\/socket$/, "")}/metrics`;
  let failure: unknown;
  for (let tries = 0; tries < 600; tries++) {
    // On a loaded machine a request to the bridge busy taking 10 servers' links can fail: asked again, not fatal.
    const text = await fetch(metricsUrl).then(
      (response) => response.text(),
      (error: unknown) => void (failure = error),
    );
    if (text?.includes(`bridge_servers_connected ${servers}\n`)) return void (await sleep(300));
    await sleep(50);
  }
  throw new Error(`the ${servers} servers never all joined the bridge`, { cause: failure });
}
