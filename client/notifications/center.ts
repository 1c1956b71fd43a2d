// Notification state of one connection: the application scope (always) and the sessions the app watches.
// Events upsert; snapshots (on connect, on reconnect, on watch) are the authority; the dismissal cache hides what
// the user dismissed; every newly observed pending revision runs its ui_effects once.
import type { AnyEvent } from "../wire/events.ts";
import { notificationEventSchemaByType } from "../wire/notification.ts";
import { isPermanentRefusal } from "../transport/errors.ts";
import type { Requester } from "../transport/http.ts";
import { Signal, type Disposer, type Observable } from "../util/observable.ts";
import type { Timers } from "../util/timers.ts";
import { DismissalCache, type DismissalEntry } from "./dismissal-cache.ts";
import {
  dismissDesktop,
  dismissMobile,
  settle,
  verdictFor,
  type DismissHost,
  type DismissMode,
  type DismissResult,
} from "./dismissal.ts";
import { EffectObserver } from "./effects.ts";
import { Invalidations } from "./invalidations.ts";
import { decidePresentation, type PresentationDecision } from "./presentation.ts";
import { parseRecord, revisionOf, scopeKey, type ClientRecord, type ScopeRef } from "./record.ts";
import { ScopeStore } from "./scope-store.ts";
import { listScope } from "./routes.ts";
import type { StorageAdapter } from "../storage/storage.ts";

export interface PresentedNotification {
  record: ClientRecord;
  scope: ScopeRef;
  decision: PresentationDecision;
}

export interface CenterOptions {
  http: Requester;
  storage: StorageAdapter;
  timers: Timers;
  connectionId: string;
  mode: DismissMode;
  /** An unknown presentation or a malformed record: reported here, never thrown. */
  report(problem: string, detail: unknown): void;
}

export class NotificationCenter {
  readonly invalidations = new Invalidations((error) =>
    this.options.report("an invalidations subscriber threw", error),
  );
  private readonly stores = new Map<
    string,
    { ref: ScopeRef; store: ScopeStore; view: Signal<readonly PresentedNotification[]> }
  >();
  private readonly watched = new Set<string>();
  private readonly reported = new Set<string>();
  private readonly cache: DismissalCache;
  private readonly effects: EffectObserver;
  private readonly host: DismissHost;
  private readonly loaded: Promise<void>;
  private cacheReady = false;

  constructor(private readonly options: CenterOptions) {
    this.cache = new DismissalCache(options.storage, options.connectionId);
    this.loaded = this.cache
      .load()
      .catch((error: unknown) => options.report("dismissal cache unreadable", error))
      .then(() => void (this.cacheReady = true));
    this.effects = new EffectObserver(options.connectionId, this.invalidations);
    this.host = {
      http: options.http,
      cache: this.cache,
      timers: options.timers,
      connectionId: options.connectionId,
      apply: (scope, record) => this.upsert(scope, record),
      changed: () => this.refreshAll(),
    };
    this.slot({ scope: "application" });
  }

  /** Application notifications to present now (connection-level). */
  get application(): Observable<readonly PresentedNotification[]> {
    return this.slot({ scope: "application" }).view;
  }

  /** One session's notifications to present; call `watchSession` so reconnects reload its snapshot. */
  session(session_id: string): Observable<readonly PresentedNotification[]> {
    return this.slot({ scope: "session", session_id }).view;
  }

  /** Loads the session's snapshot now and on every reconnect, until the disposer is called. */
  async watchSession(session_id: string): Promise<Disposer> {
    const ref: ScopeRef = { scope: "session", session_id };
    this.watched.add(scopeKey(ref));
    await this.reload(ref);
    return () => this.watched.delete(scopeKey(ref));
  }

  /** The authoritative reload of every watched scope (the connection calls this on connect and reconnect). */
  async reloadAll(): Promise<void> {
    const refs: ScopeRef[] = [{ scope: "application" }, ...[...this.watched].map((key) => this.stores.get(key)!.ref)];
    await Promise.all(refs.map((ref) => this.reload(ref)));
  }

  /** Applies one event from the feed; anything that is not a well-formed notification event is ignored. */
  handleEvent(event: AnyEvent): void {
    const scope = scopeOfEvent(event);
    if (!scope) return;
    const record = parseRecord((event as { notification?: unknown }).notification);
    if (!record) return this.options.report("malformed notification record", event);
    this.upsert(scope, record);
  }

  /**
   * Dismisses what the user sees. Mobile: hidden at once (synchronously once the cache is loaded), then sent;
   * resolves `queued` when the server is unreachable. Desktop: resolves once the server agreed, rejects if not.
   */
  async dismiss(item: Pick<PresentedNotification, "record" | "scope">, reason?: string): Promise<DismissResult> {
    if (!this.cacheReady) await this.loaded;
    const dismiss = this.options.mode === "mobile" ? dismissMobile : dismissDesktop;
    return dismiss(this.host, item.scope, item.record, reason);
  }

  /** Terminal and active records for display (historical replay): no effects, no dismissal, no state change. */
  async history(scope: ScopeRef): Promise<ClientRecord[]> {
    const list = await listScope(this.options.http, scope, true);
    return list.map(parseRecord).filter((record): record is ClientRecord => record !== undefined);
  }

  private async reload(ref: ScopeRef): Promise<void> {
    await this.loaded;
    const slot = this.slot(ref);
    const request = slot.store.beginSnapshot();
    // Parsed record by record: one malformed record is dropped, not the whole snapshot.
    let list: unknown[];
    try {
      list = await listScope(this.options.http, ref);
    } catch (error) {
      slot.store.abandonSnapshot(request);
      throw error;
    }
    const records: ClientRecord[] = [];
    for (const raw of list) {
      const record = parseRecord(raw);
      if (record) records.push(record);
      else this.options.report("malformed notification record", raw);
    }
    slot.store.applySnapshot(records, request);
    for (const record of slot.store.active()) this.effects.observe(ref, record);
    try {
      await this.reconcile(ref);
    } finally {
      // The snapshot is shown even when a retried dismissal could not be sent.
      this.refresh(ref);
    }
  }

  /** Settles the cache entries of one scope against authoritative state: drop, or retry the same revision. */
  private async reconcile(ref: ScopeRef): Promise<void> {
    const store = this.slot(ref).store;
    const entries = this.cache.all().filter((entry) => scopeKey(entryScope(entry)) === scopeKey(ref));
    await Promise.all(
      entries.map((entry) =>
        verdictFor(entry, store.get(entry.notification_id)) === "drop"
          ? this.cache.drop(entry)
          : this.retry(ref, entry),
      ),
    );
  }

  /** Re-sends an owed dismissal; one the server refuses for good (a 404, a 400) ends, reported, instead of forever. */
  private async retry(ref: ScopeRef, entry: DismissalEntry): Promise<void> {
    try {
      await settle(this.host, ref, entry);
    } catch (error) {
      if (!isPermanentRefusal(error)) throw error;
      this.options.report("a dismissal the server refuses for good was dropped", { entry, error });
      await this.cache.drop(entry);
    }
  }

  private upsert(scope: ScopeRef, record: ClientRecord): void {
    const slot = this.slot(scope);
    if (!slot.store.upsert(record)) return;
    this.effects.observe(scope, record);
    const entry = this.cache.get({
      scope: scope.scope,
      session_id: scope.scope === "session" ? scope.session_id : undefined,
      notification_id: record.id,
    });
    // A newer pending revision, or a terminal one, ends the entry (rule 5); the same revision keeps it.
    if (entry && verdictFor(entry, record) === "drop") void this.cache.drop(entry);
    this.refresh(scope);
  }

  private slot(ref: ScopeRef) {
    const key = scopeKey(ref);
    let slot = this.stores.get(key);
    if (!slot)
      this.stores.set(
        key,
        (slot = {
          ref,
          store: new ScopeStore(),
          view: new Signal<readonly PresentedNotification[]>([], this.viewError),
        }),
      );
    return slot;
  }

  private readonly viewError = (error: unknown) => this.options.report("a notification view subscriber threw", error);

  private reportOnce(record: ClientRecord, reason: string): void {
    const key = `${record.id}\u0000${String(revisionOf(record))}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.options.report(`notification ${record.id} not presented: ${reason}`, record);
  }

  private refreshAll(): void {
    for (const { ref } of this.stores.values()) this.refresh(ref);
  }

  private refresh(ref: ScopeRef): void {
    const slot = this.slot(ref);
    const origin = ref.scope === "application" ? "application" : "session";
    const platform = this.options.mode;
    const view: PresentedNotification[] = [];
    for (const record of slot.store.active()) {
      const hidden = this.cache.get({
        scope: ref.scope,
        session_id: ref.scope === "session" ? ref.session_id : undefined,
        notification_id: record.id,
      });
      if (hidden && hidden.revision === revisionOf(record)) continue;
      const decision = decidePresentation(record.display?.presentation, origin, platform);
      if (decision.presented) view.push({ record, scope: ref, decision });
      else this.reportOnce(record, decision.reason);
    }
    slot.view.set(view);
  }
}

function entryScope(entry: { scope: "application" | "session"; session_id?: string | undefined }): ScopeRef {
  return entry.scope === "application"
    ? { scope: "application" }
    : { scope: "session", session_id: entry.session_id ?? "" };
}

/** Application events carry no session_id; session events must (scope ownership). */
const notificationTypes: ReadonlySet<string> = new Set(Object.keys(notificationEventSchemaByType));

function scopeOfEvent(event: AnyEvent): ScopeRef | undefined {
  if (!notificationTypes.has(event.type)) return undefined;
  if (event.type.startsWith("application_"))
    return event.session_id === undefined ? { scope: "application" } : undefined;
  return event.session_id ? { scope: "session", session_id: event.session_id } : undefined;
}
