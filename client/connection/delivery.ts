// Delivery: from what the transports hand over to what the app hears. Every event goes through the sequencer
// (exactly once, in order; sequencer.ts), sealed pushes are opened first (sealed-events.ts) and truncated ones
// fetched whole, then each event reaches the notification center and the listeners, gated per session by the floor
// of the snapshot the app loaded (docs/client.md "Listen"), and the cursor keeper saves how far that got
// (cursor-keeper.ts). The transports themselves (bridge, HTTP, relay) are transports.ts's.
import { anyEventSchema, type AnyEvent } from "../wire/events.ts";
import { formatEventId, parseEventId } from "../wire/event-id.ts";
import { isTruncatedEvent } from "../wire/frames.ts";
import type { SealedEvent } from "../wire/e2e.ts";
import type { ListenerRegistry } from "../events/listeners.ts";
import type { NotificationCenter } from "../notifications/center.ts";
import type { ReaderSink } from "../transport/event-reader.ts";
import { isPermanentRefusal } from "../transport/errors.ts";
import type { ServerApi } from "../api/server-api.ts";
import type { Disposer } from "../util/observable.ts";
import { backoffDelay, sleep, type Timers } from "../util/timers.ts";
import { EventSequencer } from "./sequencer.ts";
import type { SealedEvents } from "./sealed-events.ts";
import type { CursorKeeper } from "./cursor-keeper.ts";

/** GET /events with filters (ServerApi.readEvents). */
export type ReadEvents = ServerApi["readEvents"];

export interface DeliveryDeps {
  listeners: ListenerRegistry;
  notifications: () => NotificationCenter;
  keeper: CursorKeeper;
  readEvents: ReadEvents;
  /** The store's epoch as the HTTP reader knows it. */
  epoch(): string | undefined;
  /** Closed or refused: nothing reaches the app any more. */
  stopped(): boolean;
  timers: Timers;
  retryDelaysMs: readonly number[];
  report(message: string, detail: unknown): void;
}

export class EventDelivery {
  readonly sequencer: EventSequencer;
  /** Opens sealed pushes; undefined for a plain device (credentials without `e2e`) and until the crypto loads. */
  sealed: SealedEvents | undefined;
  /** Per session: events up to this id are reflected in a snapshot the app loaded (docs/client.md "Listen"). */
  private readonly floors = new Map<string, string>();

  constructor(private readonly deps: DeliveryDeps) {
    this.sequencer = new EventSequencer(
      (event) => this.deliver(event),
      (stub, signal) => this.fetchWhole(stub, signal),
    );
  }

  /** What the HTTP reader hands its pages to. */
  readerSink(): ReaderSink {
    return {
      cursor: () => this.sequencer.cursor,
      accept: (event) => this.sequencer.accept(event),
      advanceTo: (id) => {
        this.sequencer.advanceTo(id);
        this.deps.keeper.moved();
      },
      malformed: (raw) => this.deps.report("malformed event skipped", raw),
    };
  }

  /** A floor is an id of the old cursor's log: against a new store (ids from 1 again) it would hide events. */
  forgetFloors(): void {
    this.floors.clear();
  }

  /**
   * The events of a session after a snapshot's cursor that were already delivered (they come back with the
   * snapshot), and from then on the session's floor: its listeners hear nothing at or before it. `listener` is
   * registered for the session before those events are read, so one delivered while they are read (newer than the
   * page read) is not missed: it comes back with them, and the listener hears only what is delivered after.
   */
  async afterSnapshot(
    session_id: string,
    cursor: string,
    listener?: (event: AnyEvent) => void,
  ): Promise<{ events: AnyEvent[]; dispose: Disposer }> {
    const meanwhile: AnyEvent[] = [];
    let hear: (event: AnyEvent) => void = (event) => void meanwhile.push(event);
    const dispose = listener ? this.deps.listeners.add("*", (event) => hear(event), { session_id }) : () => undefined;
    try {
      const { events, floor } = await this.deliveredAfter(session_id, cursor);
      if (listener) hear = listener;
      return { events: [...events, ...meanwhile.filter((event) => event.event_id > floor)], dispose };
    } catch (error) {
      dispose();
      throw error;
    }
  }

  /** Reads the session's events after `cursor` when the delivery got past it, and raises the session's floor to the
   *  end of that read; answers them with the floor now. */
  private async deliveredAfter(session_id: string, cursor: string): Promise<{ events: AnyEvent[]; floor: string }> {
    const events: AnyEvent[] = [];
    let floor = cursor;
    const delivered = this.sequencer.cursor;
    if (delivered !== undefined && delivered > floor) {
      for (let more = true; more;) {
        const page = await this.deps.readEvents({ session_id, since_id: floor });
        for (const raw of page.events) {
          if (anyEventSchema.safeParse(raw).success) events.push(raw as AnyEvent);
          else this.deps.report("malformed event skipped", raw);
        }
        floor = page.next_since_id;
        more = page.has_more === true;
      }
    }
    const previous = this.floors.get(session_id);
    if (previous !== undefined && previous > floor) return { events, floor: previous };
    this.floors.set(session_id, floor);
    return { events, floor };
  }

  /**
   * A sealed push goes to the sequencer opened: at once when its key is held, else in its place while the key is
   * fetched. One that does not open is never delivered: the sequencer fetches the real event over HTTP, as for a
   * truncated push (a stub of its id).
   */
  openSealed(envelope: SealedEvent): void {
    const { report } = this.deps;
    if (!this.sealed) return report("a sealed push reached a device paired in clear; skipped", envelope);
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

  /**
   * The whole event behind a bridge stub (`truncated: true`, too big for one frame): the one event after the
   * previous id, with the stub's session/request filters. Transient failures (network, 5xx, 408, 429) are retried
   * with the HTTP backoff until it arrives or the bridge's pushes are forgotten (abort). A pruned or reset log
   * (410), a refused token, any other 4xx or an event that is not there cannot be fetched: reported through
   * onProblem, and the stub is dropped (never delivered as if it were the event).
   */
  private async fetchWhole(stub: AnyEvent, signal: AbortSignal): Promise<AnyEvent | undefined> {
    const { report } = this.deps;
    const previous = formatEventId(parseEventId(stub.event_id)! - 1);
    const query = {
      since_id: previous,
      limit: 1,
      session_id: stub.session_id,
      request_id: stub.request_id,
      epoch: this.deps.epoch(),
    };
    for (let attempt = 0; ; attempt++) {
      try {
        const page = await this.deps.readEvents(query, { signal });
        const raw = page.events[0];
        if (anyEventSchema.safeParse(raw).success && (raw as AnyEvent).event_id === stub.event_id)
          return raw as AnyEvent;
        report("the event behind a truncated bridge push is not in the log; skipped", stub);
        return undefined;
      } catch (error) {
        if (signal.aborted) throw error;
        if (isPermanentRefusal(error)) {
          report("the event behind a truncated bridge push cannot be fetched; skipped", { stub, error });
          return undefined;
        }
        report("fetching a truncated bridge push failed (retrying)", error);
        await sleep(this.deps.timers, backoffDelay(this.deps.retryDelaysMs, attempt), signal);
      }
    }
  }

  private deliver(event: AnyEvent): void {
    if (this.deps.stopped()) return; // closed or refused: nothing reaches the app any more
    // Runs inside a phoenix or fetch callback: nothing may escape into it (delivery would stall).
    try {
      // Every event feeds the notification center: a message snapshot says nothing about notifications, and
      // the center never moves a record to an older revision, so a late copy is harmless.
      this.deps.notifications().handleEvent(event);
    } catch (error) {
      this.deps.report("the notification center failed on an event", { error, event });
    }
    // The loadMessages floor gates the listeners scoped to that session only (docs/client.md "Listen"): a listener of
    // every session read no snapshot, so it hears each event once even when a snapshot got ahead of the delivery.
    const floor = event.session_id === undefined ? undefined : this.floors.get(event.session_id);
    this.deps.listeners.dispatch(event, floor !== undefined && event.event_id <= floor);
    // Saved only now: what the listeners wrote for this event is queued before the cursor that covers it.
    this.deps.keeper.moved();
  }
}

/** The stand-in for a sealed event that did not open: its id alone, fetched whole over HTTP like a truncated push. */
function stubOf(envelope: SealedEvent): AnyEvent {
  return { event_id: envelope.event_id, type: "sealed", truncated: true } as unknown as AnyEvent;
}
