// The client an app holds: one connection to one paired server. It wires the transports (bridge live feed,
// HTTP catch-up and long-poll) through the machine and the sequencer to the listeners and the notification
// state, and offers the snapshot reads and (through ServerApi) every app-facing server call. Create it with
// `connect()`.
import type { z } from "zod";
import { anyEventSchema, type AnyEvent } from "../wire/events.ts";
import { formatEventId, parseEventId } from "../wire/event-id.ts";
import type { MessagesSnapshot } from "../wire/http.ts";
import { isTruncatedEvent } from "../wire/frames.ts";
import { ListenerRegistry, type ListenOptions } from "../events/listeners.ts";
import type { EventOfType, KnownEventType } from "../events/narrow.ts";
import { NotificationCenter } from "../notifications/center.ts";
import type { DismissMode } from "../notifications/dismissal.ts";
import { memoryStorage, type StorageAdapter } from "../storage/storage.ts";
import { BridgeConnection, type WebSocketConstructor } from "../transport/bridge.ts";
import type { LivenessTimings } from "../transport/liveness.ts";
import { isPermanentRefusal, NetworkError, ServerOfflineError, UnauthorizedError } from "../transport/errors.ts";
import { EventReader } from "../transport/event-reader.ts";
import { HttpApi, type FetchLike, type RequestOptions } from "../transport/http.ts";
import { ServerApi } from "../api/server-api.ts";
import { RouteChoice, type Route } from "../api/route-choice.ts";
import { PushWaiter, RelayApi, RelayError } from "../transport/relay.ts";
import { Emitter, Signal, type Disposer, type Observable } from "../util/observable.ts";
import { backoffDelay, DEFAULT_RETRY_DELAYS_MS, sleep, systemTimers, type Timers } from "../util/timers.ts";
import { connectionIdOf, forgetCredentials, loadCredentials, type Credentials } from "./credentials.ts";
import { ConnectionDriver } from "./driver.ts";
import { statusOf, type ConnectionStatus } from "./machine.ts";
import { EventSequencer } from "./sequencer.ts";
import { SealedEvents } from "./sealed-events.ts";
import { loadCrypto } from "../wire/crypto/load.ts";
import type { SealedEvent } from "../wire/e2e.ts";
import { SealedRelayChannel } from "../transport/sealed-relay.ts";

/** The longest long-poll window the server accepts (GET /events wait_ms). */
export const MAX_POLL_WAIT_MS = 30_000;

export interface ConnectOptions {
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  /** Defaults to the global WebSocket; Node 20 has none, pass `ws`'s. */
  WebSocket?: WebSocketConstructor;
  /**
   * The bridge URLs to use instead of the credentials' `bridge_url` (itself one URL or several separated by commas):
   * the nodes of a bridge cluster, tried in order; when the one in use fails the next is tried (docs/client.md
   * "Several bridge URLs").
   */
  bridgeUrls?: readonly string[];
  /**
   * Credentials and the dismissal cache; defaults to memory (nothing survives a restart). When the device is
   * revoked, the credentials saved here (if they are this client's) are removed before the status says so.
   */
  storage?: StorageAdapter;
  /** `mobile`: hide on tap, retry later; `desktop`: visible until the server confirms. Default mobile. */
  mode?: DismissMode;
  timers?: Timers;
  /** Long-poll window while the bridge is unreachable (ms; clamped to the server's 30000). Default 25000. */
  pollWaitMs?: number;
  retryDelaysMs?: readonly number[];
  heartbeatIntervalMs?: number;
  /** The phoenix socket's reconnect schedule (default: quick attempts, then jittered backoff; docs/client.md). */
  reconnectAfterMs?: (tries: number) => number;
  /**
   * Where server calls go: `auto` (default) straight to server_url while it answers, else through the bridge's API
   * relay; `direct` or `relay` always (docs/client.md "Route choice").
   */
  route?: Route;
  /** In `auto`, how long calls stay on the relay before server_url is tried again (ms). Default 30 000. */
  directProbeMs?: number;
  /** How long a relayed call waits for the bridge's answer (ms). Default 35 000 (the bridge times out at 30 000). */
  relayTimeoutMs?: number;
  /** When a silent bridge link is declared dead, on `timers` (default 5 s of silence, then 5 s for a ping's answer). */
  liveness?: LivenessTimings;
  /**
   * How long a WebSocket may take to open before the attempt counts as failed (default 5000). The bridge's long-poll
   * is used only when WebSocket attempts fail while its long-poll endpoint answers (docs/client.md "Transport choice").
   */
  longPollFallbackMs?: number;
  /** While on the bridge's long-poll, how often a WebSocket is tried again (ms, on `timers`). Default 60 000. */
  retryWebSocketMs?: number;
}

/** Something went wrong that the client handled itself (retrying, skipping a malformed item); for logs. */
export interface ClientProblem {
  message: string;
  detail: unknown;
}

export interface LoadedMessages extends MessagesSnapshot {
  /** Events of this session after cursor_event_id that the connection had already delivered: apply them next. */
  events: AnyEvent[];
}

export class ChatClient extends ServerApi {
  readonly notifications: NotificationCenter;
  readonly connectionId: string;
  private readonly statusSignal = new Signal<ConnectionStatus>({ state: "catching_up" }, (error) =>
    this.report("a status subscriber threw", error),
  );
  /** An onProblem listener that throws has nowhere else to go: console.error (the Emitter's default). */
  private readonly problems = new Emitter<ClientProblem>();
  private readonly resets = new Emitter<void>((error) => this.report("an onReset listener threw", error));
  private readonly listeners = new ListenerRegistry((error, event) =>
    this.report("a listener threw", { error, event }),
  );
  private readonly routes: RouteChoice;
  private readonly storage: StorageAdapter;
  private readonly timers: Timers;
  private readonly retryDelaysMs: readonly number[];
  private readonly reader: EventReader;
  private readonly sequencer: EventSequencer;
  private readonly driver: ConnectionDriver;
  /** Opens sealed pushes; undefined for a plain device (credentials without `e2e`) and until the crypto loads. */
  private sealed: SealedEvents | undefined;
  /** Per session: events up to this id are reflected in a snapshot the app loaded (docs/client.md "Listen"). */
  private readonly floors = new Map<string, string>();

  constructor(
    readonly credentials: Credentials,
    options: ConnectOptions = {},
  ) {
    super();
    const timers = (this.timers = options.timers ?? systemTimers);
    const storage = (this.storage = options.storage ?? memoryStorage());
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.connectionId = connectionIdOf(credentials);
    this.sequencer = new EventSequencer(
      (event) => this.deliver(event),
      (stub, signal) => this.fetchWhole(stub, signal),
    );
    this.notifications = new NotificationCenter({
      http: this,
      storage,
      timers,
      connectionId: this.connectionId,
      mode: options.mode ?? "mobile",
      report: (message, detail) => this.report(message, detail),
    });
    const reader = (this.reader = new EventReader(this, {
      cursor: () => this.sequencer.cursor,
      accept: (event) => this.sequencer.accept(event),
      advanceTo: (id) => this.sequencer.advanceTo(id),
      malformed: (raw) => this.report("malformed event skipped", raw),
    }));
    const pushes = new PushWaiter(timers);
    const bridge = this.bridgeConnection(options, pushes);
    this.routes = this.routeChoice(options, bridge, pushes);
    this.driver = this.connectionDriver(options, reader, bridge);
  }

  /** The socket to the bridge: what it hears goes to the sequencer (or is opened first) and to the driver. */
  private bridgeConnection(options: ConnectOptions, pushes: PushWaiter): BridgeConnection {
    const { credentials } = this;
    return new BridgeConnection(
      {
        url: options.bridgeUrls ?? credentials.bridge_url,
        serverId: credentials.server_id,
        token: credentials.device_token,
        WebSocket: options.WebSocket,
        sinceId: () => this.sequencer.cursor,
        epoch: () => this.reader.currentEpoch,
        heartbeatIntervalMs: options.heartbeatIntervalMs,
        reconnectAfterMs: options.reconnectAfterMs,
        liveness: options.liveness,
        longPollFallbackMs: options.longPollFallbackMs,
        retryWebSocketMs: options.retryWebSocketMs,
        fetch: options.fetch,
        timers: this.timers,
      },
      {
        joined: (replay, serverOnline) => this.driver.send({ type: "bridge_joined", replay, serverOnline }),
        down: () => this.driver.send({ type: "bridge_down" }),
        serverStatus: (status) =>
          this.driver.send({ type: "server_status", online: status.online, since: status.since }),
        // A bridge that is down is the reconnect schedule's business; a change of transport is worth a note.
        transport: (verdict) => verdict !== "bridge_down" && this.report(TRANSPORT_NOTES[verdict], verdict),
        event: (event) => {
          this.sequencer.push(event);
          pushes.pushed();
        },
        sealed: (envelope) => {
          this.openSealed(envelope);
          pushes.pushed();
        },
        refused: (reason) => this.driver.send({ type: "auth_failed", reason }),
        malformed: (payload) => this.report("malformed bridge push skipped", payload),
      },
    );
  }

  /** Server calls straight to server_url or through the bridge's relay, whichever answers. */
  private routeChoice(options: ConnectOptions, bridge: BridgeConnection, pushes: PushWaiter): RouteChoice {
    const { credentials, timers } = this;
    return new RouteChoice({
      route: options.route ?? "auto",
      direct: new HttpApi({ baseUrl: credentials.server_url, token: credentials.device_token, fetch: options.fetch }),
      // An encrypting device seals every relayed call to the server's key (transport/sealed-relay.ts).
      relay: new RelayApi(
        credentials.e2e ? new SealedRelayChannel(bridge, credentials, credentials.e2e, timers) : bridge,
        pushes,
        options.relayTimeoutMs,
      ),
      timers,
      directProbeMs: options.directProbeMs,
      switched: (to, why) =>
        this.report(
          `server calls now go ${to === "relay" ? "through the bridge relay" : "straight to server_url"}`,
          why,
        ),
    });
  }

  /** The connection's state machine over the bridge and the HTTP reader (driver.ts). */
  private connectionDriver(options: ConnectOptions, reader: EventReader, bridge: BridgeConnection): ConnectionDriver {
    return new ConnectionDriver({
      reader,
      sequencer: this.sequencer,
      bridge,
      timers: this.timers,
      retryDelaysMs: this.retryDelaysMs,
      // The server refuses a wait_ms above 30 000 or not an integer (400): every poll would fail.
      pollWaitMs: Math.max(0, Math.min(MAX_POLL_WAIT_MS, Math.floor(options.pollWaitMs ?? 25_000))),
      reloadSnapshots: () => this.notifications.reloadAll(),
      cursorReset: () => {
        // A floor is an id of the old cursor's log: against a new store (ids from 1 again) it would hide events.
        this.floors.clear();
        this.resets.emit();
      },
      changed: (snapshot) => this.statusChanged(statusOf(snapshot)),
      failed: (error) => this.report("connection problem (handled)", error),
    });
  }

  /** live, catching_up, polling, offline, or stopped with a reason. */
  get status(): Observable<ConnectionStatus> {
    return this.statusSignal;
  }

  /** The id of the last event delivered (or skipped as internal); undefined before the first read. */
  get cursor(): string | undefined {
    return this.sequencer.cursor;
  }

  /**
   * Starts reading. An end-to-end device first loads the crypto (wire/crypto/load.ts), so it accepts no event before
   * it can open one; a load that fails (an offline chunk fetch) is reported and tried again on the HTTP backoff.
   */
  start(): this {
    const { e2e } = this.credentials;
    if (!e2e) this.driver.send({ type: "start" });
    else void this.startSealed(e2e);
    return this;
  }

  private async startSealed(e2e: NonNullable<Credentials["e2e"]>): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const crypto = await loadCrypto();
        this.sealed = new SealedEvents({
          crypto,
          serverId: this.credentials.server_id,
          deviceId: this.credentials.device_id,
          deviceSecretKey: e2e.device_secret_key,
          fetchKeys: (signal) => this.contentKeys({ signal }),
          report: (message, detail) => this.report(message, detail),
          timers: this.timers,
          retryDelaysMs: this.retryDelaysMs,
        });
        // Closed while it loaded: it stays closed.
        if (!this.stopped) this.driver.send({ type: "start" });
        return;
      } catch (error) {
        this.report("the encryption code could not be loaded; trying again", error);
        await sleep(this.timers, backoffDelay(this.retryDelaysMs, attempt), new AbortController().signal);
      }
    }
  }

  /** Closed, or refused by the server: nothing starts any more. */
  private get stopped(): boolean {
    return this.driver.current.state === "stopped";
  }

  /**
   * The one request function: every server call of the library and of ServerApi's methods goes through it, straight
   * to server_url or through the bridge relay (RouteChoice). A 401 means the device token is dead (revoked,
   * unknown): the client stops with `revoked`, like a bridge close 4001.
   */
  async request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.infer<S>> {
    try {
      return await this.routes.request(method, path, schema, options);
    } catch (error) {
      if (error instanceof UnauthorizedError) this.driver.send({ type: "auth_failed", reason: "unauthorized" });
      throw options?.signal?.aborted ? error : this.serverOfflineOr(error, `${method} ${path}`);
    }
  }

  /** A body goes in parts when its call would go through the relay (docs/uploads.md), or, while `auto` may move a
   *  call there, when it is larger than one part. */
  protected override sendsInParts(bytes: number): boolean {
    return this.routes.sendsInParts(bytes);
  }

  /**
   * A call that could not reach the server is a ServerOfflineError when the server is what is missing: the bridge
   * says its link is down, or the relay found no server. Otherwise the error stays what it was (a NetworkError: this
   * device cannot reach anything).
   */
  private serverOfflineOr(error: unknown, what: string): unknown {
    if (!(error instanceof NetworkError)) return error;
    const server = this.driver.current.context.server;
    const noServer = error instanceof RelayError && error.reason === "server_unavailable";
    if (server?.online !== false && !noServer) return error;
    const since = server?.online === false ? server.since : undefined;
    return new ServerOfflineError(`${what}: the server is offline${since ? ` (since ${since})` : ""}`, since, {
      cause: error,
    });
  }

  /** Listens for one event type (validated against its schema) or "*" (every event); returns the disposer. */
  on<T extends KnownEventType>(
    type: T,
    listener: (event: AnyEvent & EventOfType<T>) => void,
    options?: ListenOptions,
  ): Disposer;
  on(type: "*" | (string & {}), listener: (event: AnyEvent) => void, options?: ListenOptions): Disposer;
  on(type: string, listener: (event: never) => void, options?: ListenOptions): Disposer {
    return this.listeners.add(type, listener as (event: AnyEvent) => void, options);
  }

  /** The cursor expired (410): events were skipped; reload what you show from snapshots. */
  onReset(listener: () => void): Disposer {
    return this.resets.on(listener);
  }

  /** Problems the client handled itself (retries, skipped malformed items, unknown presentations). */
  onProblem(listener: (problem: ClientProblem) => void): Disposer {
    return this.problems.on(listener);
  }

  /**
   * Loads a session's messages with the cursor they reflect. From then on no listener scoped to this session hears
   * an event of it at or before that cursor (listeners of every session still hear each event once); events after it
   * that were already delivered come back in `events`.
   * `listener`, when given, is registered for this session at exactly that point, so it misses nothing.
   * With `limit`, only the chat's last `limit` messages come (`messages_start` says where they begin; older ones are
   * read with getSessionPage): a long chat opens without reading it whole.
   */
  async loadMessages(
    session_id: string,
    listener?: (event: AnyEvent) => void,
    options: { limit?: number } = {},
  ): Promise<LoadedMessages & { dispose: Disposer }> {
    const snapshot = await this.messagesSnapshot(session_id, options.limit);
    const events: AnyEvent[] = [];
    let floor = snapshot.cursor_event_id;
    const delivered = this.sequencer.cursor;
    if (delivered !== undefined && delivered > floor) {
      for (let more = true; more;) {
        const page = await this.readEvents({ session_id, since_id: floor });
        for (const raw of page.events) {
          if (anyEventSchema.safeParse(raw).success) events.push(raw as AnyEvent);
          else this.report("malformed event skipped", raw);
        }
        floor = page.next_since_id;
        more = page.has_more === true;
      }
    }
    const previous = this.floors.get(session_id);
    if (previous === undefined || floor > previous) this.floors.set(session_id, floor);
    const dispose = listener ? this.listeners.add("*", listener, { session_id }) : () => undefined;
    return { ...snapshot, events, dispose };
  }

  /** Stops for good: leaves the bridge, aborts HTTP, cancels timers. */
  close(): void {
    this.driver.send({ type: "stop" });
  }

  /**
   * The whole event behind a bridge stub (`truncated: true`, too big for one frame): the one event after the
   * previous id, with the stub's session/request filters. Transient failures (network, 5xx, 408, 429) are retried
   * with the HTTP backoff until it arrives or the bridge's pushes are forgotten (abort). A pruned or reset log
   * (410), a refused token, any other 4xx or an event that is not there cannot be fetched: reported through
   * onProblem, and the stub is dropped (never delivered as if it were the event).
   */
  private async fetchWhole(stub: AnyEvent, signal: AbortSignal): Promise<AnyEvent | undefined> {
    const previous = formatEventId(parseEventId(stub.event_id)! - 1);
    const query = {
      since_id: previous,
      limit: 1,
      session_id: stub.session_id,
      request_id: stub.request_id,
      epoch: this.reader.currentEpoch,
    };
    for (let attempt = 0; ; attempt++) {
      try {
        const page = await this.readEvents(query, { signal });
        const raw = page.events[0];
        if (anyEventSchema.safeParse(raw).success && (raw as AnyEvent).event_id === stub.event_id)
          return raw as AnyEvent;
        this.report("the event behind a truncated bridge push is not in the log; skipped", stub);
        return undefined;
      } catch (error) {
        if (signal.aborted) throw error;
        if (isPermanentRefusal(error)) {
          this.report("the event behind a truncated bridge push cannot be fetched; skipped", { stub, error });
          return undefined;
        }
        this.report("fetching a truncated bridge push failed (retrying)", error);
        await sleep(this.timers, backoffDelay(this.retryDelaysMs, attempt), signal);
      }
    }
  }

  /**
   * A revoked device's credentials are forgotten before the status says `revoked`, so an app that reacts by
   * reloading finds none and shows pairing. Only this client's own entry is removed (a newer pairing stays).
   */
  private statusChanged(status: ConnectionStatus): void {
    if (status.state !== "stopped" || status.reason !== "revoked") return this.statusSignal.set(status);
    void this.forgetOwnCredentials()
      .catch((error: unknown) => this.report("could not forget the revoked credentials", error))
      .finally(() => this.statusSignal.set(status));
  }

  private async forgetOwnCredentials(): Promise<void> {
    const stored = await loadCredentials(this.storage);
    if (stored && stored.device_token === this.credentials.device_token && connectionIdOf(stored) === this.connectionId)
      await forgetCredentials(this.storage);
  }

  /**
   * A sealed push goes to the sequencer opened: at once when its key is held, else in its place while the key is
   * fetched. One that does not open is never delivered: the sequencer fetches the real event over HTTP, as for a
   * truncated push (a stub of its id).
   */
  private openSealed(envelope: SealedEvent): void {
    if (!this.sealed) return this.report("a sealed push reached a device paired in clear; skipped", envelope);
    const opened = this.sealed.openNow(envelope);
    if (opened === "refused") return this.sequencer.push(stubOf(envelope));
    if (opened !== "unknown_key") return this.sequencer.push(opened);
    const sealed = this.sealed;
    this.sequencer.pushLater(envelope.event_id, async (signal) => {
      const later = await sealed.openLater(envelope, signal);
      const event = later === "refused" ? stubOf(envelope) : later;
      return isTruncatedEvent(event) ? this.fetchWhole(event, signal) : event;
    });
  }

  /** Sealed events that did not open (tampered, moved, wrongly keyed): reported through onProblem, counted here. */
  get sealedRefused(): number {
    return this.sealed?.refused ?? 0;
  }

  private deliver(event: AnyEvent): void {
    if (this.driver.current.state === "stopped") return; // closed or refused: nothing reaches the app any more
    // Runs inside a phoenix or fetch callback: nothing may escape into it (delivery would stall).
    try {
      // Every event feeds the notification center: a message snapshot says nothing about notifications, and
      // the center never moves a record to an older revision, so a late copy is harmless.
      this.notifications.handleEvent(event);
    } catch (error) {
      this.report("the notification center failed on an event", { error, event });
    }
    // The loadMessages floor gates the listeners scoped to that session only (docs/client.md "Listen"): a listener of
    // every session read no snapshot, so it hears each event once even when a snapshot got ahead of the delivery.
    const floor = event.session_id === undefined ? undefined : this.floors.get(event.session_id);
    this.listeners.dispatch(event, floor !== undefined && event.event_id <= floor);
  }

  private report(message: string, detail: unknown): void {
    this.problems.emit({ message, detail });
  }
}

/** What onProblem says when the bridge transport is chosen (transport/transport-choice.ts). */
const TRANSPORT_NOTES = {
  upgrade_refused: "WebSockets to the bridge are refused while its HTTP answers: using the bridge's long-poll",
  websocket_back: "a WebSocket to the bridge opened again: leaving the long-poll",
} as const;

/** The stand-in for a sealed event that did not open: its id alone, fetched whole over HTTP like a truncated push. */
function stubOf(envelope: SealedEvent): AnyEvent {
  return { event_id: envelope.event_id, type: "sealed", truncated: true } as unknown as AnyEvent;
}

/** Connects with paired credentials and starts at once; watch `client.status`, then `client.on(...)`. */
export function connect(credentials: Credentials, options: ConnectOptions = {}): ChatClient {
  return new ChatClient(credentials, options).start();
}
