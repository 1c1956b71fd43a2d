// The link to the bridge: owns the phoenix socket and the `server:<id>` channel, and hands the forwarder's parts
// what they need: whether the link is open, a way to push, the channel's events, and the news that a join
// succeeded or was lost. A join stays current from its ok reply until the channel errors, the link is restarted
// or closed; the parts key their per-join state to that (docs/bridge.md "Layout").
import { Socket, type Channel, type Push } from "phoenix";
import { serverJoinOkSchema } from "../../client/wire/frames.ts";
import { parseEventId } from "../../client/wire/index.ts";
import { systemClock, type Clock } from "../clock.ts";
import type { ServerContext } from "../context.ts";
import { encodeFrame, type Frame } from "./json-text.ts";
import { HeartbeatOffTransport, LinkHeartbeat } from "./link-heartbeat.ts";
import { HEARTBEAT_TIMEOUT } from "./turn-corked-websocket.ts";

export interface BridgeLinkOptions {
  url: string;
  topic: string;
  /** Read at every (re)join: the channel's join params. */
  joinParams: () => object;
  /** Reconnect backoff (tests shorten it); defaults to the phoenix client's. */
  reconnectAfterMs?: ((tries: number) => number) | undefined;
  /** Heartbeat period (default 5 s): a heartbeat unanswered by the next one means the link is dead. */
  heartbeatMs?: number | undefined;
}

/**
 * The link's heartbeat: phoenix's default is 30 s; at 5 s a link whose packets are silently dropped is found dead in
 * at most 10 s here (the heartbeat unanswered when the next is due) and in 15 s on the bridge (its silence bound).
 */
export const LINK_HEARTBEAT_MS = 5000;

export interface JoinListener {
  /** A join succeeded; the bridge has relayed everything through `resumeAfter`. */
  joined(resumeAfter: number): void;
  /** The current join is over (channel error, restart, close): acks still to come belong to it. */
  lost(): void;
}

export class BridgeLink {
  private readonly socket: Socket;
  private readonly channel: Channel;
  private readonly heartbeat: LinkHeartbeat;
  private listener: JoinListener | undefined;
  private current = false;
  private bridgeFeatures: readonly string[] = [];
  /** Ends a refused link's wait before its next try (close). */
  private readonly closing = new AbortController();

  constructor(
    options: BridgeLinkOptions,
    private readonly log: ServerContext["log"],
  ) {
    const backoff = options.reconnectAfterMs;
    this.socket = new Socket(options.url, {
      transport: HeartbeatOffTransport as unknown as new (endpoint: string) => object,
      // Relayed answers arrive already serialized (json-text.ts): spliced into the frame, not parsed again.
      encode: (message: object, callback: (encoded: string) => void) => encodeFrame(message as Frame, callback),
      ...(backoff ? { reconnectAfterMs: backoff, rejoinAfterMs: backoff } : {}),
    });
    this.channel = this.socket.channel(options.topic, options.joinParams);
    this.channel.onError(() => this.lose());
    // On real time even when the server's clock is a test's manual one: a link beats while that clock stands still.
    const heartbeatMs = options.heartbeatMs ?? LINK_HEARTBEAT_MS;
    this.heartbeat = new LinkHeartbeat(this.socket, systemClock, heartbeatMs, () => {
      this.log.warn({ heartbeat_ms: heartbeatMs }, "bridge link heartbeat unanswered: reconnecting");
      this.restart(HEARTBEAT_TIMEOUT);
    });
  }

  /** What the bridge said it speaks in the current join's reply (`audience`: client/wire/audience.ts). */
  get features(): readonly string[] {
    return this.bridgeFeatures;
  }

  /** Whether a join is current: from its ok reply until it errors, the link restarts or closes. */
  get joined(): boolean {
    return this.current;
  }

  /**
   * A push is made only on an open link: phoenix queues a push it cannot send (socket closing, channel rejoining) and
   * sends that queue on the next join, ahead of the resend from the cursor. A stale push running ahead of the cursor
   * made the bridge drop the resent events as duplicates (issue 11: cursor 516, then 541, 542, then 517...).
   */
  isOpen(): boolean {
    return this.socket.isConnected() && this.channel.state === "joined";
  }

  push(event: string, payload: object, timeoutMs?: number): Push {
    return this.channel.push(event, payload, timeoutMs);
  }

  /**
   * A push that expects no reply (no ref): no Push, timer or reply binding on this side, no ack frame from the
   * bridge. For the relayed calls' answers, whose delivery the app's own reply confirms.
   */
  send(event: string, payload: object): void {
    // joinRef() is phoenix.js's (the current join's ref), missing from @types/phoenix.
    const joinRef = (this.channel as Channel & { joinRef(): string }).joinRef();
    this.socket.push({ topic: this.channel.topic, event, payload, ref: null, join_ref: joinRef });
  }

  on(event: string, handler: (payload: unknown) => void): void {
    this.channel.on(event, handler);
  }

  /** The one listener told of joins (the forwarder, which orders what each part does on a join). */
  onJoin(listener: JoinListener): void {
    this.listener = listener;
  }

  connect(): void {
    this.channel
      .join()
      .receive("ok", (response: unknown) => this.joinedWith(response))
      .receive("error", (response: { reason?: string }) =>
        this.log.warn({ reason: response.reason }, "bridge refused the server's join"),
      );
    this.socket.connect();
  }

  /**
   * The link is stuck (an ack never came, a heartbeat went unanswered): drop the current join, reconnect, and resume
   * from the bridge's word.
   */
  restart(reason?: string): void {
    this.lose();
    this.socket.disconnect(() => this.socket.connect(), reason === undefined ? undefined : 1000, reason);
  }

  /**
   * Drops the link and tries the bridge again only after `retryMs` on `clock` (the bridge cannot carry this server's
   * events: server/forwarder/audience-link.ts). Meanwhile the bridge tells the apps the server is offline.
   */
  refuse(retryMs: number, clock: Clock): void {
    this.lose();
    this.socket.disconnect(() =>
      clock.sleep(retryMs, this.closing.signal).then(
        () => this.socket.connect(),
        () => undefined,
      ),
    );
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.heartbeat.stop();
    this.lose();
    await new Promise<void>((resolve) => this.socket.disconnect(() => resolve(), 1001, "server shutting down"));
  }

  private joinedWith(response: unknown): void {
    const parsed = serverJoinOkSchema.safeParse(response);
    if (!parsed.success)
      return this.log.error({ problem: parsed.error.issues[0]?.message }, "bridge join reply not understood");
    this.current = true;
    this.bridgeFeatures = parsed.data.features ?? [];
    this.log.info({ resume_after: parsed.data.resume_after }, "forwarder joined the bridge");
    const resumeAfter = parseEventId(parsed.data.resume_after)!;
    this.listener?.joined(resumeAfter);
  }

  private lose(): void {
    this.current = false;
    this.listener?.lost();
  }
}
