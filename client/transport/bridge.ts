// The live feed: the official phoenix Socket on the bridge, one channel `events:server:<server_id>`. This module
// only translates phoenix callbacks into four facts the connection machine understands (joined with a replay
// verdict, down, event, refused for good); it decides nothing about ordering.
//
// The route to the bridge, in order: a WebSocket; Phoenix's long-poll on the bridge when the upgrade is refused while
// the bridge's HTTP answers (transport/transport-choice.ts, never phoenix's `longPollFallbackMs`, which leaves the
// WebSocket for good after one refused reconnect); and, while neither carries the feed, the server's HTTP long-poll
// (the machine's `polling`). Liveness (transport/liveness.ts) and the reconnect
// schedule (util/timers.ts reconnectDelayMs) are the library's, so a dead link and a restarted bridge are noticed
// in seconds, not phoenix's minute.
//
// Several bridge URLs (the nodes of a cluster): the socket uses one at a time and, whenever the one in use fails
// (refused, closed, or found dead by liveness), its next attempt goes to the next URL, on the same reconnect
// schedule. The channel rejoins there with the cursor, so the new node replays the gap or says `gap`.
//
// phoenix itself is fetched on the first connect (transport/phoenix-load.ts, so the app's first paint does not carry
// it): until it is in, a push waits for it as it would for the join; a failed fetch is the bridge down, tried again on
// the reconnect schedule.
import type { Channel, Socket } from "phoenix";
import { BridgeUrlRing } from "./bridge-urls.ts";
import { loadedPhoenix, loadPhoenix, type PhoenixModule } from "./phoenix-load.ts";
import type { FetchLike } from "./http.ts";
import {
  DEFAULT_OPEN_TIMEOUT_MS,
  TransportChoice,
  type TransportVerdict,
  type WebSocketConstructor,
} from "./transport-choice.ts";
import {
  cancelTimer,
  DEFAULT_LIVENESS,
  reconnectDelayMs,
  startTimer,
  systemTimers,
  type TimerHandle,
  type Timers,
} from "../util/timers.ts";
import { LinkWatch, type LivenessTimings } from "./liveness.ts";
import type { AnyEvent } from "../wire/events.ts";
import { BRIDGE_CLOSE, closeCodeRule } from "../wire/close-codes.ts";
import { eventsJoinOkSchema, sealedEventPushSchema, sessionEventPayloadSchema } from "../wire/frames.ts";
import { SERVER_STATUS_EVENT, serverStatusSchema, type ServerStatus } from "../wire/server-status.ts";
import type { SealedEvent } from "../wire/e2e.ts";

export type { WebSocketConstructor } from "./transport-choice.ts";

export interface BridgeOptions {
  /** One bridge URL, several separated by commas, or a list: tried in order, moving on when one fails. */
  url: string | readonly string[];
  serverId: string;
  token: string;
  WebSocket?: WebSocketConstructor;
  /** The cursor to resume from, read on every (re)join so the bridge replays exactly the gap. */
  sinceId: () => string | undefined;
  /** The store the cursor belongs to (from GET /events), read on every (re)join: another epoch is never replayed. */
  epoch?: () => string | undefined;
  heartbeatIntervalMs?: number;
  /**
   * The socket's reconnect schedule (on phoenix's timers), given the attempts since a socket last opened, on any
   * URL: defaults to reconnectDelayMs (quick, then jittered backoff).
   */
  reconnectAfterMs?: (tries: number) => number;
  /** When the link is declared dead (on `timers`): default DEFAULT_LIVENESS, noticed within 10 s. */
  liveness?: LivenessTimings;
  /**
   * How long a WebSocket may take to open before the attempt counts as failed (then, if the bridge's long-poll
   * answers, as refused: transport/transport-choice.ts).
   */
  longPollFallbackMs?: number;
  /** While on the bridge's long-poll, how often a WebSocket is tried again (default 60 000, on `timers`). */
  retryWebSocketMs?: number;
  /** For asking the bridge's long-poll endpoint whether it answers (default the global fetch). */
  fetch?: FetchLike;
  timers?: Timers;
}

/** A WebSocket that has not opened by then is a failed attempt (a proxy that holds upgrades). */
export const DEFAULT_LONGPOLL_FALLBACK_MS = DEFAULT_OPEN_TIMEOUT_MS;

export interface BridgeHandlers {
  /** `serverOnline`: the join reply's `server_online` (absent from older bridges). */
  joined(replay: "complete" | "gap", serverOnline?: boolean): void;
  /** The bridge's `server_status` push: the server's link to the bridge went up or down. */
  serverStatus?(status: ServerStatus): void;
  /** Which transport was chosen, and why (for onProblem). */
  transport?(verdict: TransportVerdict): void;
  down(reason: string): void;
  event(event: AnyEvent): void;
  /** A sealed push (`sealed_event`, end-to-end encryption): the caller opens it. */
  sealed?(envelope: SealedEvent): void;
  /** The bridge will never accept this token again: stop, do not retry. */
  refused(reason: "revoked" | "unauthorized"): void;
  /** A push that failed the common-field check: reported, then dropped. */
  malformed(payload: unknown): void;
}

/** Phoenix's Push (1.8, push.js) settles itself as timed out through `trigger`; a timed-out push is never sent. */
interface TimeoutTrigger {
  trigger(status: "timeout", response: object): void;
}

/** The field of phoenix's Socket (1.8, socket.js) that says where its next connection goes. */
interface Retargetable {
  endPoint: string;
}

export class BridgeConnection {
  private socket: Socket | undefined;
  private channel: Channel | undefined;
  private ended = false;
  /** The socket or channel went down since the last join: a relayed call fails at once instead of waiting. */
  private down = false;
  private watch: LinkWatch | undefined;
  private readonly urls: BridgeUrlRing;
  /** Reconnect attempts since a socket last opened. Phoenix's own count restarts on every long-poll fallback, which
   * a rotation to a new URL brings about each time, so the schedule would never leave its quick attempts. */
  private attempts = 0;
  /** WebSocket or long-poll; undefined when there is no WebSocket at all (phoenix then long-polls). */
  private choice: TransportChoice | undefined;
  private urlMoves = 0;
  /** Relayed pushes waiting for a reply: given up (`closed`) the moment the bridge is reported down. */
  private readonly waiting = new Set<() => void>();
  /** phoenix's fetch on its way (settled once the socket is open or the fetch has failed). */
  private loading: Promise<void> | undefined;
  /** The next fetch of phoenix after a failed one. */
  private loadRetry: TimerHandle | undefined;

  constructor(
    private readonly options: BridgeOptions,
    private readonly handlers: BridgeHandlers,
  ) {
    this.urls = new BridgeUrlRing(options.url);
  }

  /**
   * Opens the socket and joins; idempotent. Phoenix then reconnects and rejoins by itself until close(). Before
   * phoenix is loaded, it is fetched first and the socket opens once it is in.
   */
  connect(): void {
    if (this.socket || this.ended || this.loading || this.loadRetry) return;
    const phoenix = loadedPhoenix();
    if (phoenix) this.open(phoenix.Socket);
    else this.loading = this.loadThenConnect();
  }

  private loadThenConnect(): Promise<void> {
    return loadPhoenix().then(
      () => {
        this.loading = undefined;
        this.connect();
      },
      (error: unknown) => {
        this.loading = undefined;
        if (this.ended) return;
        this.reportDown(`transport_unavailable:${String(error)}`);
        this.loadRetry = startTimer(
          this.options.timers ?? systemTimers,
          () => ((this.loadRetry = undefined), this.connect()),
          this.schedule(++this.attempts),
        );
      },
    );
  }

  private schedule(tries: number): number {
    return this.options.reconnectAfterMs?.(tries) ?? reconnectDelayMs(tries);
  }

  private open(Socket: PhoenixModule["Socket"]): void {
    const { options } = this;
    const timers = options.timers ?? systemTimers;
    const webSocket = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    const choice = webSocket
      ? new TransportChoice({
          WebSocket: webSocket,
          timers,
          fetch: options.fetch,
          token: options.token,
          openTimeoutMs: options.longPollFallbackMs,
          retryWebSocketMs: options.retryWebSocketMs,
          decided: (verdict) => this.handlers.transport?.(verdict),
        })
      : undefined;
    this.choice = choice;
    const socket = new Socket(this.urls.current, {
      // The token goes as phoenix 1.8's subprotocol (`base64url.bearer.phx.<base64>`), not in the URL's query, which
      // proxies and access logs record. The bridge also still reads `?token=` for stock apps.
      authToken: options.token,
      ...(choice ? { transport: choice.transport } : {}),
      ...(options.heartbeatIntervalMs ? { heartbeatIntervalMs: options.heartbeatIntervalMs } : {}),
      reconnectAfterMs: () => this.schedule(++this.attempts),
    });
    this.socket = socket;
    choice?.attach(socket);
    const watch = new LinkWatch(
      timers,
      options.liveness ?? DEFAULT_LIVENESS,
      () => socket.ping(() => undefined),
      () => this.onDeadLink(socket),
    );
    this.watch = watch;
    socket.onOpen(() => {
      this.attempts = 0;
      watch.start();
    });
    socket.onMessage(() => watch.heard());
    socket.onError(() => {
      watch.stop();
      this.reportDown("socket_error");
    });
    socket.onClose((event: { code?: number }) => {
      watch.stop();
      this.onClose(event.code);
      if (!this.ended) this.moveToNextUrl(socket);
    });
    this.channel = this.join(socket);
    socket.connect();
  }

  /**
   * Pushes on the events channel (the API relay), connecting first if needed; phoenix holds the push until the
   * channel is joined. Resolves with the reply, `timeout`, or `closed` once the connection has ended or while the
   * bridge is down (reported down since its last join): waiting for it would hold the call for the whole timeout.
   */
  push(
    event: string,
    payload: object,
    timeoutMs: number,
  ): Promise<{ status: "ok" | "error" | "timeout" | "closed"; response: unknown }> {
    this.connect();
    // phoenix on its way: the push goes once the socket is made (phoenix then holds it until the join).
    if (this.loading && !this.ended) return this.loading.then(() => this.push(event, payload, timeoutMs));
    const channel = this.channel;
    if (this.ended || this.down || !channel) return Promise.resolve({ status: "closed", response: {} });
    return new Promise((resolve) => {
      let abandon = () => {};
      const settle = (reply: { status: "ok" | "error" | "timeout" | "closed"; response: unknown }) => {
        this.waiting.delete(abandon);
        resolve(reply);
      };
      const push = channel
        .push(event, payload, timeoutMs)
        .receive("ok", (response: unknown) => settle({ status: "ok", response }))
        .receive("error", (response: unknown) => settle({ status: "error", response }))
        .receive("timeout", () => settle({ status: "timeout", response: {} }));
      abandon = () => {
        settle({ status: "closed", response: {} });
        // Marked timed out, phoenix never sends it from its buffer on a later join: a call given up stays undone.
        (push as unknown as TimeoutTrigger).trigger("timeout", {});
      };
      this.waiting.add(abandon);
    });
  }

  close(): void {
    this.ended = true;
    cancelTimer(this.loadRetry);
    this.loadRetry = undefined;
    this.abandonWaiting();
    this.watch?.stop();
    this.choice?.close();
    this.channel?.leave();
    this.socket?.disconnect();
    this.channel = undefined;
    this.socket = undefined;
  }

  private join(socket: Socket): Channel {
    // A params function is re-read by phoenix on every rejoin: the bridge always replays from the current cursor.
    const channel = socket.channel(`events:server:${this.options.serverId}`, () => {
      const sinceId = this.options.sinceId();
      const epoch = this.options.epoch?.();
      return { ...(sinceId === undefined ? {} : { since_id: sinceId }), ...(epoch === undefined ? {} : { epoch }) };
    });
    channel.on("session_event", (payload: unknown) => this.onPush(payload));
    channel.on("sealed_event", (payload: unknown) => this.onSealedPush(payload));
    channel.on(SERVER_STATUS_EVENT, (payload: unknown) => this.onServerStatus(payload));
    channel.onError(() => this.reportDown("channel_error"));
    channel
      .join()
      .receive("ok", (response: unknown) => this.onJoinOk(response))
      .receive("error", (response: unknown) => this.onJoinError(response))
      .receive("timeout", () => this.reportDown("join_timeout"));
    return channel;
  }

  private onJoinOk(response: unknown): void {
    if (this.ended) return;
    this.down = false;
    const reply = eventsJoinOkSchema.safeParse(response);
    // Anything but an explicit "complete" is treated as a gap: filling it over HTTP is always safe. So is a reply
    // naming another store than ours: the HTTP catch-up then meets the epoch mismatch (410) and starts over.
    const ours = this.options.epoch?.();
    const otherStore =
      reply.success && typeof reply.data.epoch === "string" && ours !== undefined && reply.data.epoch !== ours;
    const serverOnline = reply.success ? reply.data.server_online : undefined;
    this.handlers.joined(
      reply.success && reply.data.replay === "complete" && !otherStore ? "complete" : "gap",
      serverOnline,
    );
  }

  private onServerStatus(payload: unknown): void {
    if (this.ended) return;
    const parsed = serverStatusSchema.safeParse(payload);
    if (!parsed.success) return this.handlers.malformed(payload);
    this.handlers.serverStatus?.(parsed.data);
  }

  private onJoinError(response: unknown): void {
    if (this.ended) return;
    const reason =
      typeof response === "object" && response !== null ? (response as { reason?: unknown }).reason : undefined;
    if (reason === "unauthorized") return this.refuse("unauthorized");
    // Anything else may pass (a bridge without this server yet): phoenix rejoins with backoff, HTTP carries on.
    this.reportDown(`join_error:${String(reason)}`);
  }

  private onPush(payload: unknown): void {
    if (this.ended) return;
    const parsed = sessionEventPayloadSchema.safeParse(payload);
    if (!parsed.success) return this.handlers.malformed(payload);
    // The raw event object goes on (extra fields intact); the schema only vouched for its common fields.
    this.handlers.event((payload as { event: AnyEvent }).event);
  }

  private onSealedPush(payload: unknown): void {
    if (this.ended) return;
    const parsed = sealedEventPushSchema.safeParse(payload);
    if (!parsed.success || !this.handlers.sealed) return this.handlers.malformed(payload);
    this.handlers.sealed(parsed.data);
  }

  /** What a close means is the table's (wire/close-codes.ts): come back, stay away, or give up the token. */
  private onClose(code: number | undefined): void {
    if (this.ended) return;
    const rule = closeCodeRule(code);
    if (rule.forgetToken) return this.refuse(code === BRIDGE_CLOSE.deviceRevoked ? "revoked" : "unauthorized");
    this.reportDown(`closed:${code ?? "unknown"}`);
    // Staying away: the bridge would close the next socket the same way; HTTP carries on.
    if (!rule.reconnect) this.close();
  }

  /**
   * Nothing came back from a ping: the link is dead though it never closed. Report it (HTTP takes over) and make
   * phoenix drop it and connect again now (its next attempts follow the reconnect schedule); the channel rejoins
   * with the cursor on open.
   */
  private onDeadLink(socket: Socket): void {
    if (this.ended || socket !== this.socket) return;
    this.reportDown("heartbeat_timeout");
    // A transport that reports its close synchronously (long-poll) has moved on already, in onClose: once per link.
    const moves = this.urlMoves;
    socket.disconnect();
    if (this.urlMoves === moves) this.moveToNextUrl(socket);
    socket.connect();
  }

  /**
   * Points the socket's next connection at the next URL. Phoenix builds the URL from `endPoint` on every connection
   * (socket.js endPointURL), so the rejoin with its cursor stays phoenix's own. A long-poll learnt at the failed URL
   * says nothing about the next one: it is offered the WebSocket again.
   */
  private moveToNextUrl(socket: Socket): void {
    if (!this.urls.rotates || socket !== this.socket) return;
    const target = socket as unknown as Retargetable;
    target.endPoint = `${this.urls.advance()}/websocket`;
    this.urlMoves++;
    this.choice?.reset();
  }

  /** Leave and disconnect, so phoenix stops rejoining and reconnecting (it would rejoin a refused topic forever). */
  private refuse(reason: "revoked" | "unauthorized"): void {
    this.close();
    this.handlers.refused(reason);
  }

  private abandonWaiting(): void {
    for (const abandon of [...this.waiting]) abandon();
  }

  private reportDown(reason: string): void {
    this.down = true;
    // With the link down no reply comes: a relayed call fails now instead of after its whole timeout (35 s), so an
    // app with neither its server nor its bridge reachable reads Offline at once (docs/client.md "The badge").
    this.abandonWaiting();
    if (!this.ended) this.handlers.down(reason);
  }
}
