// The last events of one server, kept so an app that rejoins with since_id gets the gap in order. Bounded by count
// and by size: events may be up to ~1 MiB each, so a count alone would let one server's buffer hold a gigabyte. The
// buffer knows from which id on it is complete (`coveredAfter`): a since_id older than that is a gap the app fills
// over HTTP; never a partial replay presented as whole. A hole in what arrived is a hole in what it can replay: an
// event whose `after` lies beyond the newest id received restarts the covered range after that `after`, and an
// event arriving behind newer ones (out of order, so it was missing when they came) moves the range past it.
import type { DeviceMode } from "../../client/wire/e2e.ts";

/** One form of an event: the payload text one mode of device is sent, and the audience tags whose devices get it. */
export interface EventForm {
  mode: DeviceMode;
  to: readonly string[];
  /** `{"event": ...}` for plain devices (`session_event`), `{event_id, key_id, nonce, ciphertext}` for encrypting
   * ones (`sealed_event`): serialized once, replay and broadcast reuse it. */
  json: string;
}

export interface BufferedEvent {
  id: string;
  /** Everyone the event is for, by audience tag (bridge/fanout/audience.ts): any other device skips it. */
  audience: readonly string[];
  /** What they are sent; a device in the audience without its form here is told `gap`. */
  forms: readonly EventForm[];
  /** The session the event belongs to, when its plain form names one: a deleted session's events are dropped. */
  sessionId?: string;
}

/** What an event costs the buffer's size bound: all its forms. */
export function heldBytes(event: BufferedEvent): number {
  let bytes = 0;
  for (const form of event.forms) bytes += form.json.length;
  return bytes;
}

/**
 * What the buffer made of an arrival. `next`: kept, the range runs on. `after_hole`: kept, the range restarts after
 * the hole (whoever holds a cursor before it must fill it over HTTP). `duplicate`: already held or older than the
 * range; dropped. `late`: it was missing when newer events came; dropped, and the range moved past it.
 */
export type Arrival = "next" | "after_hole" | "duplicate" | "late";

export class ReplayBuffer {
  /** Live events are `items[head..]`; evicted slots before `head` are cleared so their payloads can be collected. */
  private readonly items: Array<BufferedEvent | undefined> = [];
  private head = 0;
  /** Sum of the live events' forms' lengths (heldBytes). */
  private bytes = 0;
  /** Every event with an id above this is held (or was never published). Undefined: unknown. */
  private coveredAfter: string | undefined;
  /** The newest id received (or the reset point): an arrival at or below it is out of order. */
  private newest: string | undefined;

  /**
   * @param capacity most events held
   * @param maxBytes most payload held, counted as the forms' `json.length` (UTF-16 code units: the bytes of ASCII JSON,
   *   and within a factor of 2 to 3 of them otherwise, which is close enough for a memory bound)
   */
  constructor(
    private readonly capacity: number,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Starts over: from now on the buffer holds every event after `afterId`. */
  reset(afterId: string): void {
    this.items.length = 0;
    this.head = 0;
    this.bytes = 0;
    this.coveredAfter = afterId;
    this.newest = afterId;
  }

  /**
   * Takes an arriving event. `after`: the id the sender pushed before it (or resumed from), when it says so; an
   * `after` beyond the newest id received means the events between never came.
   */
  push(event: BufferedEvent, after?: string): Arrival {
    if (this.newest !== undefined && event.id <= this.newest) return this.behind(event.id);
    const hole = after !== undefined && this.newest !== undefined && after > this.newest;
    if (hole) this.reset(after);
    this.newest = event.id;
    this.append(event);
    return hole ? "after_hole" : "next";
  }

  private append(event: BufferedEvent): void {
    this.items.push(event);
    this.bytes += heldBytes(event);
    // The oldest go until both bounds hold (an event alone over maxBytes evicts itself, as with a capacity of 0).
    while (this.size > this.capacity || this.bytes > this.maxBytes) this.evictOldest();
    // Compact once the evicted slots outnumber the live ones: amortized O(1) per push, the array at most twice the
    // live count.
    if (this.head > 0 && this.head >= this.size) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }

  /**
   * An arrival at or below the newest id: a resend of what is held or of what the range no longer covers
   * ("duplicate"), or an event that was missing when newer ones came ("late"). A late one is never inserted (apps
   * already have the newer ones live); the covered range moves past it, to the first event held above it.
   */
  private behind(id: string): Arrival {
    if (this.coveredAfter === undefined || id <= this.coveredAfter) return "duplicate";
    const above = this.indexAbove(id);
    if (above > this.head && this.items[above - 1]!.id === id) return "duplicate";
    const coveredAfter = above < this.items.length ? this.items[above]!.id : this.newest!;
    // Everything up to the new range's start is dead weight: no since_id it could serve is complete any more.
    while (this.head < this.items.length && this.items[this.head]!.id <= coveredAfter) this.evictOldest();
    this.coveredAfter = coveredAfter;
    return "late";
  }

  /** Index of the first held event with an id above `id` (items are in id order). */
  private indexAbove(id: string): number {
    let low = this.head;
    let high = this.items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.items[middle]!.id <= id) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Events after `sinceId`, or undefined when the buffer cannot vouch for the whole gap. */
  after(sinceId: string): BufferedEvent[] | undefined {
    if (this.coveredAfter === undefined || sinceId < this.coveredAfter) return undefined;
    const result: BufferedEvent[] = [];
    for (let i = this.items.length - 1; i >= this.head && this.items[i]!.id > sinceId; i--) result.push(this.items[i]!);
    return result.reverse();
  }

  /**
   * Drops the held events `doomed` picks (a deleted session's): a replay then skips them, as the server's own store
   * keeps their ids without their bodies. The covered range is unchanged: what is left is still all there is.
   */
  drop(doomed: (event: BufferedEvent) => boolean): number {
    const kept: BufferedEvent[] = [];
    let bytes = 0;
    for (let i = this.head; i < this.items.length; i++) {
      const event = this.items[i]!;
      if (doomed(event)) continue;
      kept.push(event);
      bytes += heldBytes(event);
    }
    const dropped = this.size - kept.length;
    this.items.length = 0;
    this.items.push(...kept);
    this.head = 0;
    this.bytes = bytes;
    return dropped;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  /** The payload held, in the unit of `maxBytes`. */
  get payloadBytes(): number {
    return this.bytes;
  }

  private evictOldest(): void {
    const oldest = this.items[this.head]!;
    this.items[this.head] = undefined;
    this.head++;
    this.bytes -= heldBytes(oldest);
    // Evicting the oldest moves the complete range forward past it.
    this.coveredAfter = oldest.id;
  }
}
