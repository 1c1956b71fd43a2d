// Long synchronous work cut into bounded slices (docs/export.md "Import"): the work calls step() between its small
// steps, and once a slice has taken SLICE_MS on the clock, step() gives the event loop a turn before the next one.
// An import of one conversation of 10,000 messages was one block of seconds during which the server answered
// nothing (not even /health); in slices it answers between them.
import type { Clock } from "../clock.ts";

/** Work done before the event loop gets a turn: small enough for a /health p99 well under 50 ms. */
export const SLICE_MS = 8;

/** The turn given between slices: after the I/O waiting (setImmediate), so requests that came in are answered. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Slices {
  private sliceStart: number;
  /** Turns given so far (tests and logs). */
  turns = 0;

  constructor(
    private readonly clock: Pick<Clock, "now">,
    private readonly budgetMs = SLICE_MS,
  ) {
    this.sliceStart = clock.now();
  }

  /** Whether this slice's budget is spent: work that cannot yield midway (a transaction) stops here. */
  due(): boolean {
    return this.clock.now() - this.sliceStart >= this.budgetMs;
  }

  /** Between two steps of work: resolves at once within the slice's budget, after a turn of the loop past it. */
  async step(): Promise<void> {
    if (!this.due()) return;
    await nextTurn();
    this.turns++;
    this.sliceStart = this.clock.now();
  }

  /** `work` on each item, in slices. */
  async each<T>(items: Iterable<T>, work: (item: T) => void): Promise<void> {
    for (const item of items) {
      work(item);
      await this.step();
    }
  }
}
