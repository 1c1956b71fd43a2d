// Exactly once, in order. Every transport hands its events here; one cursor (the highest event id delivered)
// decides. Event ids are fixed-width decimal strings, so string comparison is numeric comparison.
//
// Why a single cursor is enough: each source is complete from the point it started reading (HTTP from the
// cursor it sent; the bridge from the since_id of its acknowledged join), and each start point was at or before
// the cursor. So whichever source delivers an id above the cursor first, everything below it was delivered
// already, and anything at or below the cursor is a duplicate. The one source that is not complete is the bridge
// before its join is acknowledged (or after it said "gap"): its pushes are held back until HTTP has covered the
// gap, then released in id order.
//
// A bridge push may be a stub (`truncated: true`: the event was too big for one frame). It is resolved to the
// whole event (fetched over HTTP by `resolve`) before it goes on, and the pushes behind it wait in arrival order,
// so listeners still hear every event once and in order, and never the stub. A sealed push whose content key the
// device does not hold yet (end-to-end encryption, docs/security.md) waits in that same queue (`pushLater`) while
// the key is fetched: nothing behind it overtakes it.
import type { AnyEvent } from "../wire/events.ts";
import { isTruncatedEvent } from "../wire/frames.ts";

export type Deliver = (event: AnyEvent) => void;

/** Fetches the whole event a stub stands for; undefined when it cannot be had (reported by the resolver). */
export type ResolveStub = (stub: AnyEvent, signal: AbortSignal) => Promise<AnyEvent | undefined>;

/** A bridge push waiting for a stub ahead of it (or for its own fetch). */
interface Queued {
  event: AnyEvent | undefined;
  ready: boolean;
}

export class EventSequencer {
  private cursorId: string | undefined;
  private held: AnyEvent[] = [];
  private trusted = false;
  /** Bridge pushes behind an unresolved stub, in arrival order. */
  private queued: Queued[] = [];
  /** Aborted when the bridge's pushes are forgotten (distrust, reset): late fetches are then dropped. */
  private resolving = new AbortController();
  /** How many events were dropped as duplicates (a figure for tests and benchmarks). */
  duplicates = 0;

  constructor(
    private readonly deliver: Deliver,
    private readonly resolve: ResolveStub = async () => undefined,
  ) {}

  get cursor(): string | undefined {
    return this.cursorId;
  }

  /** From HTTP or from a trusted bridge: complete and ordered from a point at or before the cursor. */
  accept(event: AnyEvent): void {
    if (this.cursorId !== undefined && event.event_id <= this.cursorId) {
      this.duplicates++;
      return;
    }
    this.cursorId = event.event_id;
    this.deliver(event);
  }

  /** An HTTP page ended at `nextSinceId`: ids up to it that were not returned are internal or compacted away. */
  advanceTo(nextSinceId: string): void {
    if (this.cursorId === undefined || nextSinceId > this.cursorId) this.cursorId = nextSinceId;
  }

  /** A push from the bridge: through at once when trusted, else held until `trust()`; stubs are resolved first. */
  push(event: AnyEvent): void {
    // A stub at or below the cursor is a duplicate whatever it stands for: no need to fetch it.
    const stub = isTruncatedEvent(event) && (this.cursorId === undefined || event.event_id > this.cursorId);
    if (!stub && this.queued.length === 0) return this.pass(event);
    const item: Queued = { event, ready: !stub };
    this.queued.push(item);
    if (stub) this.settleLater(item, (signal) => this.resolve(event, signal));
  }

  /** A push whose event is known only later (`whole`: undefined when it cannot be had); it keeps its place. */
  pushLater(eventId: string, whole: (signal: AbortSignal) => Promise<AnyEvent | undefined>): void {
    if (this.cursorId !== undefined && eventId <= this.cursorId) {
      this.duplicates++;
      return;
    }
    const item: Queued = { event: undefined, ready: false };
    this.queued.push(item);
    this.settleLater(item, whole);
  }

  private settleLater(item: Queued, whole: (signal: AbortSignal) => Promise<AnyEvent | undefined>): void {
    const { signal } = this.resolving;
    whole(signal).then(
      (whole) => {
        if (signal.aborted) return;
        item.event = whole;
        item.ready = true;
        this.drain();
      },
      () => undefined, // only an abort rejects: the queue it belonged to is gone
    );
  }

  private drain(): void {
    while (this.queued[0]?.ready) {
      const { event } = this.queued.shift()!;
      if (event) this.pass(event);
    }
  }

  private pass(event: AnyEvent): void {
    if (this.trusted) this.accept(event);
    else this.held.push(event);
  }

  private forgetQueued(): void {
    this.resolving.abort();
    this.resolving = new AbortController();
    this.queued = [];
  }

  /** The bridge's join is acknowledged and any gap filled: release held pushes in id order, then pass through. */
  trust(): void {
    const held = this.held.sort((a, b) => (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0));
    this.held = [];
    this.trusted = true;
    for (const event of held) this.accept(event);
  }

  /** The bridge dropped: what it held back will come again from a replay or from HTTP. */
  distrust(): void {
    this.trusted = false;
    this.held = [];
    this.forgetQueued();
  }

  /** Cursor expired: forget it, so the next read bootstraps at the head of the log. */
  reset(): void {
    this.cursorId = undefined;
    this.held = [];
    this.forgetQueued();
  }

  get heldCount(): number {
    return this.held.length;
  }
}
