// The client an app holds: one connection to one paired server. It wires the transports (bridge live feed,
// HTTP catch-up and long-poll) through the machine and the sequencer to the listeners and the notification
// state, and offers the snapshot reads and (through ServerApi) every app-facing server call. Create it with
// `connect()`.
import type { z } from "zod";
import type { AnyEvent } from "../wire/events.ts";
import type { MessagesSnapshot } from "../wire/http.ts";
import { ListenerRegistry, type ListenOptions } from "../events/listeners.ts";
import type { EventOfType, KnownEventType } from "../events/narrow.ts";
import { NotificationCenter } from "../notifications/center.ts";
import { memoryStorage, type StorageAdapter } from "../storage/storage.ts";
import { NetworkError, ServerOfflineError, UnauthorizedError } from "../transport/errors.ts";
import { EventReader } from "../transport/event-reader.ts";
import type { RequestOptions } from "../transport/http.ts";
import { ServerApi } from "../api/server-api.ts";
import type { RouteChoice } from "../api/route-choice.ts";
import { RelayError } from "../transport/relay.ts";
import { Emitter, Signal, type Disposer, type Observable } from "../util/observable.ts";
import { backoffDelay, DEFAULT_RETRY_DELAYS_MS, sleep, systemTimers, type Timers } from "../util/timers.ts";
import { connectionIdOf, forgetCredentials, loadCredentials, type Credentials } from "./credentials.ts";
import { ConnectionDriver } from "./driver.ts";
import { statusOf, type ConnectionStatus } from "./machine.ts";
import { SealedEvents } from "./sealed-events.ts";
import { loadCrypto } from "../wire/crypto/load.ts";
import { CursorKeeper } from "./cursor-keeper.ts";
import { EventDelivery } from "./delivery.ts";
import type { ConnectOptions } from "./options.ts";
import { openTransports } from "./transports.ts";
import type { BridgeConnection } from "../transport/bridge.ts";

export type { ConnectOptions } from "./options.ts";

/** The longest long-poll window the server accepts (GET /events wait_ms). */
export const MAX_POLL_WAIT_MS = 30_000;

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
  private readonly delivery: EventDelivery;
  private readonly keeper: CursorKeeper;
  private readonly driver: ConnectionDriver;
  /** Whether this run started from a saved cursor, decided once the cursor store was read (start()). */
  private resumption: Promise<boolean> | undefined;

  constructor(
    readonly credentials: Credentials,
    options: ConnectOptions = {},
  ) {
    super();
    const timers = (this.timers = options.timers ?? systemTimers);
    const storage = (this.storage = options.storage ?? memoryStorage());
    const report = (message: string, detail: unknown) => this.report(message, detail);
    this.retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.connectionId = connectionIdOf(credentials);
    this.keeper = new CursorKeeper({
      store: options.cursorStore,
      connectionId: this.connectionId,
      current: () => this.savedPoint(),
      report,
    });
    this.delivery = new EventDelivery({
      listeners: this.listeners,
      notifications: () => this.notifications,
      keeper: this.keeper,
      readEvents: (query, requestOptions) => this.readEvents(query, requestOptions),
      epoch: () => this.reader.currentEpoch,
      stopped: () => this.stopped,
      timers,
      retryDelaysMs: this.retryDelaysMs,
      report,
    });
    this.notifications = new NotificationCenter({
      http: this,
      storage,
      timers,
      connectionId: this.connectionId,
      mode: options.mode ?? "mobile",
      report,
    });
    const reader = (this.reader = new EventReader(this, this.delivery.readerSink()));
    const { bridge, routes } = openTransports({
      credentials,
      options,
      timers,
      delivery: this.delivery,
      epoch: () => this.reader.currentEpoch,
      send: (input) => this.driver.send(input),
      report,
    });
    this.routes = routes;
    this.driver = this.connectionDriver(options, reader, bridge);
  }

  /** What a save keeps: the cursor and the store it belongs to, once both are known. */
  private savedPoint(): { event_id: string; epoch: string } | undefined {
    const event_id = this.delivery.sequencer.cursor;
    const epoch = this.reader.currentEpoch;
    return event_id !== undefined && epoch !== undefined ? { event_id, epoch } : undefined;
  }

  /** The connection's state machine over the bridge and the HTTP reader (driver.ts). */
  private connectionDriver(options: ConnectOptions, reader: EventReader, bridge: BridgeConnection): ConnectionDriver {
    return new ConnectionDriver({
      reader,
      sequencer: this.delivery.sequencer,
      bridge,
      timers: this.timers,
      retryDelaysMs: this.retryDelaysMs,
      // The server refuses a wait_ms above 30 000 or not an integer (400): every poll would fail.
      pollWaitMs: Math.max(0, Math.min(MAX_POLL_WAIT_MS, Math.floor(options.pollWaitMs ?? 25_000))),
      reloadSnapshots: () => this.notifications.reloadAll(),
      cursorReset: () => {
        this.delivery.forgetFloors();
        // What the app kept reflects the old cursor: nothing is saved until it has reloaded (keepCursor).
        this.keeper.pause();
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
    return this.delivery.sequencer.cursor;
  }

  /**
   * Starts reading. With a cursor store, the saved cursor is read first and the reading starts after it
   * (resumed()). An end-to-end device first loads the crypto (wire/crypto/load.ts), so it accepts no event before
   * it can open one; a load that fails (an offline chunk fetch) is reported and tried again on the HTTP backoff.
   */
  start(): this {
    if (this.resumption) return this;
    if (!this.keeper.enabled) {
      this.resumption = Promise.resolve(false);
      this.startReading();
    } else {
      this.resumption = this.resumeSaved().then((resumed) => (this.startReading(), resumed));
    }
    return this;
  }

  /**
   * Whether this run started from a saved cursor (ConnectOptions.cursorStore): then what the app kept reflects every
   * event up to it, and the events after it come to the listeners as they would live; otherwise (nothing saved, or
   * another pairing's) reading starts at the log's head and the app reloads what it shows from snapshots, then calls
   * keepCursor(). False until start().
   */
  resumed(): Promise<boolean> {
    return this.resumption ?? Promise.resolve(false);
  }

  /**
   * What the app keeps (its cache) now reflects every event delivered so far: the client saves its cursor from now
   * on. Called after a reload from snapshots at a start that did not resume, or after onReset.
   */
  keepCursor(): void {
    this.keeper.keepFromNow();
  }

  private async resumeSaved(): Promise<boolean> {
    const saved = await this.keeper.load();
    if (!saved || this.stopped) return false;
    this.delivery.sequencer.advanceTo(saved.event_id);
    this.reader.resumeEpoch(saved.epoch);
    this.keeper.resumed();
    return true;
  }

  private startReading(): void {
    const { e2e } = this.credentials;
    if (!e2e) this.driver.send({ type: "start" });
    else void this.startSealed(e2e);
  }

  private async startSealed(e2e: NonNullable<Credentials["e2e"]>): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        const crypto = await loadCrypto();
        this.delivery.sealed = new SealedEvents({
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
    const { events, dispose } = await this.delivery.afterSnapshot(session_id, snapshot.cursor_event_id, listener);
    return { ...snapshot, events, dispose };
  }

  /** Stops for good: leaves the bridge, aborts HTTP, cancels timers. */
  close(): void {
    this.driver.send({ type: "stop" });
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
    await this.keeper.forget().catch((error: unknown) => this.report("could not forget the saved event cursor", error));
    const stored = await loadCredentials(this.storage);
    if (stored && stored.device_token === this.credentials.device_token && connectionIdOf(stored) === this.connectionId)
      await forgetCredentials(this.storage);
  }

  /** Sealed events that did not open (tampered, moved, wrongly keyed): reported through onProblem, counted here. */
  get sealedRefused(): number {
    return this.delivery.sealed?.refused ?? 0;
  }

  private report(message: string, detail: unknown): void {
    this.problems.emit({ message, detail });
  }
}

/** Connects with paired credentials and starts at once; watch `client.status`, then `client.on(...)`. */
export function connect(credentials: Credentials, options: ConnectOptions = {}): ChatClient {
  return new ChatClient(credentials, options).start();
}
