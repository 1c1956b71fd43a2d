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
/** A row's estimate once given; its shape (null: none) read when first needed. */
type Given = { size: number; row: Estimated; shape?: string | null };

export class RowEstimates {
  /** The height last measured for each shape. */
  private readonly measured = new Map<string, number>();
  private readonly given = new Map<Key, Given>();

  constructor(private readonly fallback: number) {}

  estimate(row: Estimated | undefined): number {
    if (row === undefined) return this.fallback;
    const known = this.given.get(row.key);
    if (known) return known.size;
    const given: Given = { size: this.fallback, row };
    // Until a row is measured there is nothing to look up: a chat's first rows cost no shape.
    if (this.measured.size > 0) given.size = this.measured.get(shapeOf(given) ?? "") ?? this.fallback;
    this.given.set(row.key, given);
    return given.size;
  }

  /** A row's measured height: the estimate of the rows of its shape estimated from now on. */
  learn(key: Key, size: number): void {
    const given = this.given.get(key);
    const shape = given && shapeOf(given);
    if (shape && size > 0) this.measured.set(shape, size);
  }
}

function shapeOf(given: Given): string | null {
  return (given.shape ??= given.row.shape?.() ?? null);
}
