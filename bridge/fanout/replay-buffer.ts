// The last events of one server, kept so an app that rejoins with since_id gets the gap in order. Bounded by count
// and by size: events may be up to ~1 MiB each, so a count alone would let one server's buffer hold a gigabyte. The
// buffer knows from which id on it is complete (`coveredAfter`): a since_id older than that is a gap the app fills
// over HTTP; never a partial replay presented as whole.
export interface BufferedEvent {
  id: string;
  /** `{"event": ...}` serialized once: replay and broadcast reuse it. */
  payloadJson: string;
}

export class ReplayBuffer {
  /** Live events are `items[head..]`; evicted slots before `head` are cleared so their payloads can be collected. */
  private readonly items: Array<BufferedEvent | undefined> = [];
  private head = 0;
  /** Sum of the live events' `payloadJson.length`. */
  private bytes = 0;
  /** Every event with an id above this is held (or was never published). Undefined: unknown. */
  private coveredAfter: string | undefined;

  /**
   * @param capacity most events held
   * @param maxBytes most payload held, counted as `payloadJson.length` (UTF-16 code units: the bytes of ASCII JSON,
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
  }

  push(event: BufferedEvent): void {
    this.items.push(event);
    this.bytes += event.payloadJson.length;
    // The oldest go until both bounds hold (an event alone over maxBytes evicts itself, as with a capacity of 0).
    while (this.size > this.capacity || this.bytes > this.maxBytes) this.evictOldest();
    // Compact once the evicted slots outnumber the live ones: amortized O(1) per push, the array at most twice the
    // live count.
    if (this.head > 0 && this.head >= this.size) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Events after `sinceId`, or undefined when the buffer cannot vouch for the whole gap. */
  after(sinceId: string): BufferedEvent[] | undefined {
    if (this.coveredAfter === undefined || sinceId < this.coveredAfter) return undefined;
    const result: BufferedEvent[] = [];
    for (let i = this.items.length - 1; i >= this.head && this.items[i]!.id > sinceId; i--) result.push(this.items[i]!);
    return result.reverse();
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
    this.bytes -= oldest.payloadJson.length;
    // Evicting the oldest moves the complete range forward past it.
    this.coveredAfter = oldest.id;
  }
}
