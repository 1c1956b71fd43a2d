// A bridge stand-in that speaks the official phoenix wire (vsn 2.0.0 JSON arrays `[join_ref, ref, topic, event,
// payload]` over a WebSocket on `/socket/websocket`, the `phoenix` subprotocol chosen) and lets a test decide what
// the bridge says: the events join's reply (`server_online`), `server_status` and `session_event` pushes, and the
// answer to relayed `api` calls. The library under test runs the real phoenix client against it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

type Frame = [string | null, string | null, string, string, unknown];

export interface FakeBridgeOptions {
  /** The join reply's `server_online` (undefined: an older bridge that does not say). */
  serverOnline?: boolean;
  /** The answer to an `api` push: `{status: "error", response: {reason}}` or an ok `{status, body}`. */
  api?: (payload: unknown) => { status: "ok" | "error"; response: unknown };
}

export class FakeBridge {
  private readonly sockets = new Set<WebSocket>();
  /** The join ref and topic of each socket's events channel, for pushes. */
  private readonly joins = new Map<WebSocket, { joinRef: string | null; topic: string }>();
  joinCount = 0;

  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    readonly options: FakeBridgeOptions,
  ) {}

  static async start(options: FakeBridgeOptions = {}): Promise<FakeBridge> {
    const http = createServer((request, response) => {
      // A phoenix long-poll endpoint's answer to a POST without a session (what the library probes with).
      response.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" });
      response.end(JSON.stringify({ status: 410 }));
    });
    const wss = new WebSocketServer({ server: http, path: "/socket/websocket", handleProtocols: () => "phoenix" });
    const bridge = new FakeBridge(http, wss, options);
    wss.on("connection", (socket) => bridge.accept(socket));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    return bridge;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.http.address() as AddressInfo).port}/socket`;
  }

  /** Pushes `event` with `payload` on every joined events channel. */
  push(event: string, payload: unknown): void {
    for (const [socket, join] of this.joins)
      socket.send(JSON.stringify([join.joinRef, null, join.topic, event, payload] satisfies Frame));
  }

  get joined(): number {
    return this.joins.size;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    this.sockets.add(socket);
    socket.on("close", () => {
      this.sockets.delete(socket);
      this.joins.delete(socket);
    });
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      const [joinRef, ref, topic, event, payload] = frame;
      const reply = (status: "ok" | "error", response: unknown) =>
        socket.send(JSON.stringify([joinRef, ref, topic, "phx_reply", { status, response }] satisfies Frame));
      if (topic === "phoenix" && event === "heartbeat") return reply("ok", {});
      if (event === "phx_join" && topic.startsWith("events:server:")) {
        this.joinCount++;
        this.joins.set(socket, { joinRef, topic });
        const online = this.options.serverOnline;
        return reply("ok", {
          replay: "complete",
          replayed: 0,
          last_event_id: null,
          ...(online === undefined ? {} : { server_online: online }),
        });
      }
      if (event === "phx_leave") {
        this.joins.delete(socket);
        return reply("ok", {});
      }
      if (event === "api") {
        const answer = this.options.api?.(payload) ?? { status: "error", response: { reason: "server_unavailable" } };
        return reply(answer.status, answer.response);
      }
      reply("error", { reason: "unmatched topic" });
    });
  }
}
