// A real server (Fastify + SQLite + forwarder) and a real bridge on 127.0.0.1, each restartable on the same port
// and data dir, plus helpers to pair a device through the client library and to produce events.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import { WebSocket } from "ws";
import { startBridge, type RunningBridge } from "../../../bridge/bridge.ts";
import { ManualClock } from "../../bridge/manual-clock.ts";
import { defaultBridgeConfig, type BridgeConfig } from "../../../bridge/config.ts";
import { MemoryLogger } from "../../support/memory-logger.ts";
import { hashPairingCode } from "../../../server/pairing/codes.ts";
import { startForwarder, type Forwarder } from "../../../server/forwarder/forwarder.ts";
import { parseProducer, producerInputSchema, type ProducerInput } from "../../../server/notifications/input.ts";
import { startTestServer, type TestServer } from "../../support/server.ts";
import type { ConfigInput } from "../../../server/config/schema.ts";
import { pair } from "../../../client/connection/pair.ts";
import { connect, type ChatClient } from "../../../client/connection/client.ts";
import type { StackScope } from "../../support/use-stack.ts";
import type { Credentials } from "../../../client/connection/credentials.ts";
import type { WebSocketConstructor } from "../../../client/transport/bridge.ts";
import type { AnyEvent } from "../../../client/wire/events.ts";
import { holds } from "../../support/holds.ts";
import { DATABASE_FILE } from "../../../server/runtime.ts";

export const NodeWebSocket = WebSocket as unknown as WebSocketConstructor;

/** Connect options for tests: ws as the transport (Node 20 has none) and reconnects in milliseconds. */
export const FAST_RECONNECT = { reconnectAfterMs: () => 20, retryDelaysMs: [20], WebSocket: NodeWebSocket };

/** Waits until the client delivers live over the bridge. */
export function untilLive(client: { status: { get(): { state: string } } }): Promise<void> {
  return until(() => client.status.get().state === "live", "live");
}

/** A client connected with `credentials` and owned by the test's scope, live, hearing every event into `seen`. */
export async function liveClient(
  scope: Pick<StackScope, "own">,
  credentials: Credentials,
): Promise<{ client: ChatClient; seen: AnyEvent[] }> {
  const client = scope.own(connect(credentials, FAST_RECONNECT));
  const seen: AnyEvent[] = [];
  client.on("*", (event) => seen.push(event));
  await untilLive(client);
  return { client, seen };
}

/**
 * Appends a message holding a fresh marker (`MARKER-<tag>-<random>`) to a new chat and waits until a listener has
 * heard an event carrying it in `heard`; answers the marker, for a test that then looks for it where it must not be.
 */
export async function markerHeard(stack: Stack, heard: AnyEvent[], tag: string, limitMs?: number): Promise<string> {
  const sessionId = await stack.createSession();
  const marker = `MARKER-${tag}-${Math.random().toString(36).slice(2)}`;
  await stack.append(sessionId, marker);
  const carried = () => heard.some((event) => JSON.stringify(event).includes(marker));
  await until(carried, `the device's listener got the marker ${tag}`, limitMs);
  return marker;
}

/** Waits for a condition (never a fixed sleep); the suite's timeout bounds it. */
export function until(check: () => boolean | Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  return holds(check, `timed out waiting for: ${what}`, limitMs);
}

export class Stack {
  server!: TestServer;
  forwarder!: Forwarder;
  bridge: RunningBridge | undefined;
  /** What the current bridge logged (the bridge wraps it in its per-peer budget, so core.log is not this). */
  bridgeLog = new MemoryLogger();
  serverPort = 0;
  bridgePort = 0;
  readonly serverDir = mkdtempSync(join(tmpdir(), "client-server-"));
  readonly bridgeDir = mkdtempSync(join(tmpdir(), "client-bridge-"));
  readonly bridgeClock = new ManualClock();

  constructor(
    private readonly bridgeOverrides: Partial<BridgeConfig> = {},
    private readonly serverConfig: ConfigInput = {},
  ) {}

  static async start(bridgeOverrides: Partial<BridgeConfig> = {}, serverConfig: ConfigInput = {}): Promise<Stack> {
    const stack = new Stack(bridgeOverrides, serverConfig);
    await stack.startBridge();
    await stack.startServer();
    return stack;
  }

  get bridgeUrl(): string {
    return `ws://127.0.0.1:${this.bridgePort}/socket`;
  }

  get serverUrl(): string {
    return `http://127.0.0.1:${this.serverPort}`;
  }

  async startBridge(): Promise<void> {
    const config = defaultBridgeConfig({ port: this.bridgePort, dataDir: this.bridgeDir, ...this.bridgeOverrides });
    this.bridgeLog = new MemoryLogger();
    this.bridge = await startBridge({ config, clock: this.bridgeClock, log: this.bridgeLog, sweepEveryMs: 0 });
    this.bridgePort = this.bridge.port;
  }

  async stopBridge(): Promise<void> {
    await this.bridge?.close();
    this.bridge = undefined;
  }

  async startServer(): Promise<void> {
    this.server = await startTestServer(
      { ...this.serverConfig, server: { server_id: "srv1", public_url: "http://127.0.0.1:1" } },
      { dataDir: this.serverDir, bridgePublicUrl: this.bridgeUrl },
    );
    await this.server.runtime.app.listen({ host: "127.0.0.1", port: this.serverPort });
    this.serverPort = (this.server.runtime.app.server.address() as AddressInfo).port;
    this.forwarder = startForwarder(this.server.runtime.ctx, {
      bridgeUrl: this.bridgeUrl,
      reconnectAfterMs: () => 20,
      app: this.server.runtime.app,
    });
  }

  /** Like a process exit: open HTTP connections (held long-polls included) are cut, not awaited. */
  async stopServer(): Promise<void> {
    await this.forwarder.stop();
    const closing = this.server.close(true);
    this.server.runtime.app.server.closeAllConnections();
    await closing;
  }

  /** The server's event log starts over (a new epoch, ids from 1 again) across a restart; devices and sessions stay. */
  async restartWithNewEventLog(): Promise<void> {
    await this.stopServer();
    const db = new Database(join(this.serverDir, DATABASE_FILE));
    db.exec(
      "DELETE FROM events; DELETE FROM sqlite_sequence WHERE name = 'events'; DELETE FROM meta WHERE key IN ('epoch', 'forwarder_cursor');",
    );
    db.close();
    await this.startServer();
  }

  /** A pairing code from the admin route, once the bridge knows it. */
  async pairingCode(): Promise<string> {
    const created = await this.server.request({ method: "POST", url: "/pairing", payload: {} });
    const code = (created.json as { code: string }).code;
    await until(
      () => this.bridge?.core.registry.findCode(hashPairingCode(code)) !== undefined,
      "code registered on the bridge",
    );
    return code;
  }

  /** Pairs through the client library; server_url points at this test's real port. */
  /** `e2e: false` pairs as a stock phoenix client does (no device key): the device is sent plaintext `session_event`s. */
  async pair(deviceName = "phone", options: { e2e?: boolean } = {}): Promise<Credentials> {
    return this.pairWith(await this.pairingCode(), deviceName, options);
  }

  /** Pairs with a code already made; server_url points at this test's real port. */
  async pairWith(code: string, deviceName: string, options: { e2e?: boolean } = {}): Promise<Credentials> {
    const credentials = await pair({
      bridgeUrl: this.bridgeUrl,
      code,
      deviceName,
      WebSocket: NodeWebSocket,
      ...options,
    });
    return { ...credentials, server_url: this.serverUrl };
  }

  async createSession(): Promise<string> {
    const response = await this.server.request({ method: "POST", url: "/sessions", payload: {} });
    return (response.json as { session: { id: string } }).session.id;
  }

  async append(sessionId: string, content: string): Promise<void> {
    const response = await this.server.request({
      method: "POST",
      url: `/sessions/${sessionId}/messages`,
      payload: { role: "user", content },
    });
    if (response.status !== 201) throw new Error(`append answered ${response.status}`);
  }

  notifyApplication(input: ProducerInput) {
    return this.server.runtime.ctx.notifications.application.publish(parseProducer(producerInputSchema, input), "test");
  }

  /** A producer's notification on one chat (shown inline above a phone's composer, in the desktop's rail). */
  notifySession(sessionId: string, input: ProducerInput, source = "test") {
    return this.server.runtime.ctx.notifications
      .session(sessionId)
      .publish(parseProducer(producerInputSchema, input), source);
  }

  /** The store's own sequence of public events after `since` (what GET /events gives an admin). */
  async storeEvents(since = "0"): Promise<AnyEvent[]> {
    const events: AnyEvent[] = [];
    for (;;) {
      const page = await this.server.request({ method: "GET", url: `/events?since_id=${since}&limit=1000` });
      const body = page.json as { events: AnyEvent[]; next_since_id: string; has_more?: boolean };
      events.push(...body.events);
      since = body.next_since_id;
      if (!body.has_more) return events;
    }
  }

  latestId(): string {
    return String(this.server.runtime.ctx.events.latestId).padStart(20, "0");
  }

  async close(): Promise<void> {
    await this.stopBridge();
    await this.stopServer().catch(() => undefined);
    rmSync(this.serverDir, { recursive: true, force: true });
    rmSync(this.bridgeDir, { recursive: true, force: true });
  }
}
