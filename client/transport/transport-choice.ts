// Which transport a phoenix Socket uses to reach the bridge: the WebSocket, or phoenix's long-poll where WebSockets
// are blocked (docs/client.md "Transport choice").
//
// Why not phoenix's own `longPollFallbackMs`: phoenix 1.8 (socket.js connectWithFallback) replaces the socket's
// transport with LongPoll, for the socket's whole life, as soon as one connect attempt errors before it opens. A
// bridge that is down refuses the connection, so the first reconnect after any bridge outage "fell back", and once
// the bridge was back the socket stayed on long-poll for good: live, but never pushed to over a WebSocket again.
//
// The rule here: a WebSocket attempt that errors, closes or does not open within `openTimeoutMs` is a failure. After
// each failure the bridge's long-poll endpoint is asked (a POST without a session, which a phoenix endpoint answers
// `{"status": 410}` without opening anything). If it does not answer, the bridge is down: the socket stays on the
// WebSocket and phoenix reconnects on its schedule. If it answers after `refusalsBeforeLongPoll` failures in a row,
// the upgrade is being refused while the bridge's HTTP works: the socket moves to long-poll. While on long-poll, a
// WebSocket is tried on its own every `retryWebSocketMs`; when one opens, the socket moves back to it.
import type { Socket } from "phoenix";
import type { FetchLike } from "./http.ts";
import { cancelTimer, startTimer, type TimerHandle, type Timers } from "../util/timers.ts";

/** A WebSocket constructor: the browser's, React Native's, or `ws` in Node (Node 20 has none built in). */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => object;

export interface TransportChoiceOptions {
  WebSocket: WebSocketConstructor;
  timers: Timers;
  fetch?: FetchLike;
  /** The device token, for the WebSocket tried while on long-poll (phoenix's auth subprotocol). */
  token?: string;
  /** A WebSocket that has not opened by then is a failed attempt (a proxy that holds upgrades). Default 5000. */
  openTimeoutMs?: number;
  /** While on long-poll, a WebSocket is tried this often. Default 60 000. */
  retryWebSocketMs?: number;
  /** Failed WebSocket attempts in a row, each with the long-poll endpoint answering, before long-poll. Default 2. */
  refusalsBeforeLongPoll?: number;
  /** How long the long-poll endpoint may take to answer the probe. Default 5000. */
  probeTimeoutMs?: number;
  /** Told each decision: the bridge is down (WebSocket kept), the upgrade is refused (long-poll), WebSocket back. */
  decided?(verdict: TransportVerdict): void;
}

export type TransportVerdict = "bridge_down" | "upgrade_refused" | "websocket_back";

export const DEFAULT_OPEN_TIMEOUT_MS = 5000;
export const DEFAULT_RETRY_WEBSOCKET_MS = 60_000;
const DEFAULT_REFUSALS = 2;
const DEFAULT_PROBE_TIMEOUT_MS = 5000;
/** Phoenix's subprotocol prefix for the auth token (socket.js AUTH_TOKEN_PREFIX). */
const AUTH_TOKEN_PREFIX = "base64url.bearer.phx.";

/** The phoenix Socket fields this module reads or sets (1.8 socket.js); @types/phoenix 1.6 lacks some. */
interface PhoenixSocket {
  transport: unknown;
  readonly conn: unknown;
  endPointURL(): string;
  getLongPollTransport(): unknown;
  replaceTransport(transport: unknown): void;
  connect(): void;
  onOpen(callback: () => void): unknown;
  onError(callback: (error: unknown) => void): unknown;
  onClose(callback: (event: unknown) => void): unknown;
}

/** What this module sets on a WebSocket it opens itself. */
interface OwnWebSocket {
  onopen: () => void;
  onerror: () => void;
  onclose: () => void;
  close(code?: number): void;
}

/** Left on a WebSocket we are done with: `ws` throws an error event nobody listens to (closing while connecting). */
const ignore = () => undefined;

interface Attempt {
  ws: object;
  opened: boolean;
  failed: boolean;
  timer: TimerHandle | undefined;
}

export class TransportChoice {
  /** The constructor to give phoenix as `transport`: the WebSocket, with each attempt seen here. */
  readonly transport: WebSocketConstructor;
  private socket: PhoenixSocket | undefined;
  private attempt: Attempt | undefined;
  /** Failed WebSocket attempts in a row for which the long-poll endpoint answered. */
  private refusals = 0;
  /** Bumped when a WebSocket opens: a probe started before then has nothing to decide. */
  private generation = 0;
  private retryTimer: TimerHandle | undefined;
  private trial: OwnWebSocket | undefined;
  private closed = false;

  constructor(private readonly options: TransportChoiceOptions) {
    const Real = options.WebSocket;
    const started = (ws: object) => this.started(ws);
    // Returning the real instance from the constructor hands phoenix the real WebSocket (its readyState, send, ...).
    this.transport = class TrackedWebSocket {
      constructor(url: string, protocols?: string | string[]) {
        const ws = new Real(url, protocols);
        started(ws);
        return ws as TrackedWebSocket;
      }
    } as unknown as WebSocketConstructor;
  }

  /** Watches `socket`, which must have been made with `transport` as its transport. */
  attach(socket: Socket): void {
    const phx = socket as unknown as PhoenixSocket;
    this.socket = phx;
    phx.onOpen(() => this.opened());
    phx.onError(() => this.endedBeforeOpen());
    phx.onClose(() => this.endedBeforeOpen());
  }

  /** Whether the socket is on long-poll now. */
  get onLongPoll(): boolean {
    return this.socket !== undefined && this.socket.transport !== this.transport;
  }

  /**
   * Whether the socket's connection now is a long-poll one. Not the same as `onLongPoll`: the switch is made when a
   * probe answers, and a WebSocket phoenix opened before it may fail after it (on a loaded machine, its refusal came
   * after the probe's answer), its error then no long-poll's.
   */
  get connectedOverLongPoll(): boolean {
    const LongPoll = this.socket?.getLongPollTransport();
    return typeof LongPoll === "function" && this.socket!.conn instanceof LongPoll;
  }

  /** A new URL (another bridge node): what was learnt at the old one does not hold; the WebSocket first. */
  reset(): void {
    this.refusals = 0;
    this.generation++;
    this.stopRetrying();
    if (this.socket) this.socket.transport = this.transport;
  }

  close(): void {
    this.closed = true;
    this.stopRetrying();
    if (this.attempt) cancelTimer(this.attempt.timer);
    this.attempt = undefined;
  }

  private started(ws: object): void {
    if (this.attempt) cancelTimer(this.attempt.timer);
    const attempt: Attempt = { ws, opened: false, failed: false, timer: undefined };
    attempt.timer = startTimer(
      this.options.timers,
      () => {
        if (attempt.opened || attempt.failed) return;
        this.failed(attempt);
        // Phoenix has no connect timeout of its own: closing makes it reconnect on its schedule.
        closeQuietly(ws);
      },
      this.options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS,
    );
    this.attempt = attempt;
  }

  private opened(): void {
    const attempt = this.attempt;
    if (!this.socket || !attempt || this.socket.conn !== attempt.ws) return this.onLongPollOpen();
    attempt.opened = true;
    cancelTimer(attempt.timer);
    this.refusals = 0;
    this.generation++;
    this.stopRetrying();
  }

  private endedBeforeOpen(): void {
    const attempt = this.attempt;
    if (!this.socket || !attempt || attempt.opened || attempt.failed || this.socket.conn !== attempt.ws) return;
    cancelTimer(attempt.timer);
    this.failed(attempt);
  }

  private failed(attempt: Attempt): void {
    attempt.failed = true;
    const generation = this.generation;
    void this.longPollAnswers().then((answers) => {
      // A WebSocket opened (or the URL changed) meanwhile: this failure is history.
      if (this.closed || generation !== this.generation || this.onLongPoll) return;
      if (!answers) {
        this.refusals = 0;
        return this.options.decided?.("bridge_down");
      }
      this.refusals++;
      if (this.refusals < (this.options.refusalsBeforeLongPoll ?? DEFAULT_REFUSALS)) return;
      // The next connect phoenix makes (on its reconnect schedule) goes over long-poll.
      this.socket!.transport = this.socket!.getLongPollTransport();
      this.options.decided?.("upgrade_refused");
    });
  }

  /** Whether the bridge's long-poll endpoint answers as a phoenix endpoint does (a JSON body with a `status`). */
  private async longPollAnswers(): Promise<boolean> {
    if (!this.socket) return false;
    const url = longPollUrlOf(this.socket.endPointURL());
    const abort = new AbortController();
    const { timers } = this.options;
    const timer = startTimer(timers, () => abort.abort(), this.options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS);
    try {
      const fetchImpl = this.options.fetch ?? ((input, init) => globalThis.fetch(input, init));
      // A text body keeps it a simple request (no CORS preflight); the endpoint answers it with CORS `*`.
      const response = await fetchImpl(url, { method: "POST", body: "", signal: abort.signal });
      const body = (await response.json()) as { status?: unknown } | null;
      return typeof body?.status === "number";
    } catch {
      return false;
    } finally {
      cancelTimer(timer);
    }
  }

  private onLongPollOpen(): void {
    if (this.closed || !this.onLongPoll || this.retryTimer !== undefined) return;
    this.retryTimer = startTimer(
      this.options.timers,
      () => {
        this.retryTimer = undefined;
        this.tryWebSocket();
      },
      this.options.retryWebSocketMs ?? DEFAULT_RETRY_WEBSOCKET_MS,
    );
  }

  /** A WebSocket of our own, opened and closed at once: when it opens, the socket moves back to the WebSocket. */
  private tryWebSocket(): void {
    const socket = this.socket;
    if (this.closed || !socket || !this.onLongPoll) return;
    const protocols =
      this.options.token === undefined
        ? undefined
        : ["phoenix", `${AUTH_TOKEN_PREFIX}${btoa(this.options.token).replace(/=/g, "")}`];
    let trial: OwnWebSocket;
    try {
      trial = new this.options.WebSocket(socket.endPointURL(), protocols) as OwnWebSocket;
    } catch {
      return this.onLongPollOpen();
    }
    this.trial = trial;
    const { timers } = this.options;
    let settled = false;
    const settle = (opened: boolean) => {
      if (settled) return;
      settled = true;
      cancelTimer(timer);
      trial.onopen = trial.onerror = trial.onclose = ignore;
      closeQuietly(trial);
      if (this.trial === trial) this.trial = undefined;
      if (this.closed || !this.onLongPoll) return;
      if (!opened) return this.onLongPollOpen();
      this.refusals = 0;
      // Phoenix closes the long-poll connection, errors its channels (they rejoin on the WebSocket when it opens)
      // and connects again with the WebSocket.
      socket.replaceTransport(this.transport);
      socket.connect();
      this.options.decided?.("websocket_back");
    };
    const timer = startTimer(timers, () => settle(false), this.options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS);
    trial.onopen = () => settle(true);
    trial.onerror = () => settle(false);
    trial.onclose = () => settle(false);
  }

  private stopRetrying(): void {
    if (this.retryTimer !== undefined) cancelTimer(this.retryTimer);
    this.retryTimer = undefined;
    if (this.trial) {
      const trial = this.trial;
      this.trial = undefined;
      trial.onopen = trial.onerror = trial.onclose = ignore;
      closeQuietly(trial);
    }
  }
}

/** Phoenix's own mapping (longpoll.js normalizeEndpoint): ws→http, wss→https, `/websocket` → `/longpoll`. */
export function longPollUrlOf(webSocketUrl: string): string {
  return webSocketUrl
    .replace(/^ws:\/\//, "http://")
    .replace(/^wss:\/\//, "https://")
    .replace(/(.*)\/websocket/, "$1/longpoll");
}

function closeQuietly(ws: object): void {
  try {
    (ws as { close(code?: number): void }).close(1000);
  } catch {
    // Already closed, or a transport that throws on close while connecting: nothing to release.
  }
}
