// The last N events of one server, kept so an app that rejoins with since_id gets the gap in order. The buffer
// knows from which id on it is complete (`coveredAfter`): a since_id older than that is a gap the app fills over
// HTTP; never a partial replay presented as whole.
export interface BufferedEvent {
  id: string;
  /** `{"event": ...}` serialized once: replay and broadcast reuse it. */
  payloadJson: string;
}

export class ReplayBuffer {
  private readonly items: BufferedEvent[] = [];
  private head = 0;
  /** Every event with an id above this is held (or was never published). Undefined: unknown. */
  private coveredAfter: string | undefined;

  constructor(private readonly capacity: number) {}

  /** Starts over: from now on the buffer holds every event after `afterId`. */
  reset(afterId: string): void {
    this.items.length = 0;
    this.head = 0;
    this.coveredAfter = afterId;
  }

  push(event: BufferedEvent): void {
    if (this.capacity === 0) {
      this.coveredAfter = event.id;
      return;
    }
    if (this.items.length - this.head >= this.capacity) {
      // Evicting the oldest moves the complete range forward past it.
      this.coveredAfter = this.items[this.head]!.id;
      this.head++;
      // Compact now and then, so the array never grows past twice the capacity.
      if (this.head >= this.capacity) {
        this.items.splice(0, this.head);
        this.head = 0;
      }
    }
    this.items.push(event);
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
}
