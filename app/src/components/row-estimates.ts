// A row's height before it is measured (docs/app.md "Long chats", LC17). The virtualizer places a row it has not
// measured at its estimate; the first measure of a row mounted above the reader then corrects the scroll position by
// the difference and renders the list again, in the frame that mounted it. A fling up a long chat mounts a screen of
// such rows each frame, so a constant estimate paid a correction and a second render per frame. Rows of the same
// shape (a plain message's role, blocks and lines' lengths: laid out alike at the same width) measure alike, so a row
// is estimated at the height last measured for its shape, and most rows of a fling come in at their height.
// A row's estimate is fixed the first time it is asked: rows above the reader are placed at their estimates, and one
// changing afterwards would move the rows below it with no correction.

type Key = string | number | bigint;
/** What the estimates know of a row: its key, and its shape when rows of that shape are laid out alike. */
export type Estimated = { key: Key; shape?: () => string | undefined };

export class RowEstimates {
  /** The height last measured for each shape. */
  private readonly measured = new Map<string, number>();
  /** Each row's estimate once given, by its key. */
  private readonly given = new Map<Key, number>();

  constructor(private readonly fallback: number) {}

  estimate(row: Estimated | undefined): number {
    if (row === undefined) return this.fallback;
    const known = this.given.get(row.key);
    if (known !== undefined) return known;
    // Until a row is measured there is nothing to look up: a chat's first rows cost no shape.
    const size = this.measured.size > 0 ? (this.measured.get(row.shape?.() ?? "") ?? this.fallback) : this.fallback;
    this.given.set(row.key, size);
    return size;
  }

  /**
   * A row's measured height: the estimate of the rows of its shape estimated from now on. The shape is the row's as it
   * is now (the message at a place changes: another version, a reply after it), not the one its estimate was read for.
   */
  learn(row: Estimated | undefined, size: number): void {
    const shape = row?.shape?.();
    if (shape && size > 0) this.measured.set(shape, size);
  }
}
