// virtual-core's Virtualizer, its rows' measures applied together (docs/app.md "Long chats", LC15). The library
// applies each measure at once, and with `anchorTo: "end"` each one first asks whether the reader is at the end of
// the list: a total size, so every row from the lowest measured so far to the last is placed again. A screen of rows
// measured near the top of a 5,000-row chat placed 5,000 rows per row. Here the measures a commit (its rows' refs) or
// a ResizeObserver callback makes are queued and applied in one go: whether the reader is at the end is asked once
// for them all; far from it (more than a screen), the library is told to anchor to the start while it applies them, which is all that
// question decides (a row above the screen still moves the scroll position by its change, so nothing on the screen
// moves). The positions are then placed once, by the render the measures ask for.
import { Virtualizer, type VirtualizerOptions } from "@tanstack/virtual-core";

type Key = ReturnType<Virtualizer<HTMLElement, HTMLElement>["options"]["getItemKey"]>;
/** A measure waiting for the batch: the row's index, its key then (to tell if the rows moved since) and its size. */
type Measure = { index: number; key: Key; size: number };

export class BatchedVirtualizer extends Virtualizer<HTMLElement, HTMLElement> {
  private readonly queued: Measure[] = [];
  private flushPlanned = false;
  /**
   * Told each measure applied, with the row's index as it is now (the list's row estimates learn from the row there:
   * row-estimates.ts).
   */
  onMeasured: ((index: number, size: number) => void) | undefined;
  /**
   * Where the rows the list has in the page begin and end, as measured once its commit's measures were applied, and
   * the list's total size then; the list tells it after each commit (`noteMounted`). Undefined while it has none.
   */
  private mountedSpan: { start: number; end: number; total: number } | undefined;
  /** True while the library's scroll listener reports a scroll (`fromScrollEvent`). */
  private inScrollEvent = false;
  /**
   * The rows measureMounted measured: a row measured at its estimate leaves no entry in the library's sizes (it keeps
   * only sizes that differ), and would be measured again, a forced layout, at every commit while it stays.
   */
  private readonly measuredMounted = new WeakSet<HTMLElement>();
  /** The library's own resizeItem, which applies one measure. */
  private readonly resizeNow: (index: number, size: number) => void;

  constructor(options: VirtualizerOptions<HTMLElement, HTMLElement>) {
    super(options);
    this.resizeNow = this.resizeItem;
    // An instance property in the library (assigned in its constructor), so replaced here, not overridden.
    this.resizeItem = (index, size) => this.queue(index, size);
  }

  /**
   * Applies the queued measures. The binding calls it in its first layout effect, so a commit's rows are measured
   * before the list's own effects scroll (as the refs did when they measured at once); a measure queued outside a
   * commit (the ResizeObserver's) is applied in a microtask, still before the frame is painted.
   */
  flushMeasures(): void {
    const measures = this.queued.splice(0);
    if (measures.length === 0) return;
    const options = this.options;
    // Near the end (within a screen) the library asks per row, as it did: those rows are near the end, so placing
    // the rows from them on costs little.
    const farFromEnd = options.anchorTo === "end" && this.distanceFromEnd() > this.viewportSize();
    const applying = farFromEnd ? { ...options, anchorTo: "start" as const } : options;
    this.options = applying;
    try {
      for (const { index, key, size } of measures) {
        const now = this.indexNow(index, key);
        if (now === undefined) continue;
        this.resizeNow(now, size);
        this.onMeasured?.(now, size);
      }
    } finally {
      if (this.options === applying) this.options = options;
    }
  }

  /**
   * Queues a measure of each row in the page the library has not measured (docs/app.md LC19). While the reader scrolls
   * the library measures a mounted row only through its ResizeObserver, which reports in the frame: a fling's frame
   * then laid its new rows out, applied their measures, rendered the list again and laid it out again, over 50 ms on a
   * throttled phone. Measured in the commit that mounts them (the render after a scroll's frame, LC18), the rows are
   * laid out in that task, and the observer's first report of each in the frame finds the size already known.
   * Measured as the observer measures (its border box, rounded), so that report is equal, not off by a pixel's rounding.
   * A row with no box yet (0: not laid out, as in a document without layout) is left to the observer. Only while the
   * reader scrolls: otherwise the library's refs measure the rows they mount, and a read here could only force a
   * second layout into a commit (a chat's open) that needs none.
   */
  measureMounted(): void {
    if (!this.isScrolling) return;
    for (const [key, element] of this.elementsCache) {
      if (this.itemSizeCache.has(key) || this.measuredMounted.has(element) || !element.isConnected) continue;
      const size = Math.round(element.getBoundingClientRect().height);
      if (size <= 0) continue;
      this.measuredMounted.add(element);
      this.queue(this.indexFromElement(element), size);
    }
  }

  /** The list tells the rows its commit left in the page. */
  noteMounted(items: readonly { index: number }[]): void {
    // The total places the rows with every measure applied so far, and leaves them in the library's cache.
    const total = this.getTotalSize();
    const [first, last] = [items[0], items.at(-1)].map((item) => item && this.measurementsCache[item.index]);
    this.mountedSpan = first && last ? { start: first.start, end: last.end, total } : undefined;
  }

  /** Runs the library's report of a scroll, marked as coming from the scroll listener. */
  fromScrollEvent(report: () => void): void {
    this.inScrollEvent = true;
    try {
      report();
    } finally {
      this.inScrollEvent = false;
    }
  }

  /**
   * Whether the render the library asks for (`sync`: while the reader scrolls) may wait for a task after the frame
   * (docs/app.md LC18): asked by a scroll event, not by a measure's scroll correction or a held correction let go (those
   * need their render in the frame they change the positions of), with the list's size as the rows in the page were
   * placed at, and the screen, where the scroller stands now, within those rows.
   */
  renderMayWait(sync: boolean): boolean {
    const span = this.mountedSpan;
    if (!sync || !this.inScrollEvent || span === undefined || span.total !== this.getTotalSize()) return false;
    const top = this.scrollElement?.scrollTop ?? this.scrollOffset ?? 0;
    return top >= span.start && top + this.viewportSize() <= span.end;
  }

  private queue(index: number, size: number): void {
    if (index < 0 || index >= this.options.count) return;
    this.queued.push({ index, key: this.options.getItemKey(index), size });
    if (this.flushPlanned) return;
    this.flushPlanned = true;
    queueMicrotask(() => {
      this.flushPlanned = false;
      this.flushMeasures();
    });
  }

  /**
   * The row's index now: rows put in front (an older page) since the measure was taken give it another one, which its
   * element's data-index tells once rendered. Undefined when the row is gone.
   */
  private indexNow(index: number, key: Key): number | undefined {
    const { count, getItemKey } = this.options;
    if (index < count && getItemKey(index) === key) return index;
    const element = this.elementsCache.get(key);
    const moved = element?.isConnected ? this.indexFromElement(element) : -1;
    return moved >= 0 && moved < count && getItemKey(moved) === key ? moved : undefined;
  }

  /** How far the screen's bottom is above the list's end, in the list's layout (what the library compares). */
  private distanceFromEnd(): number {
    return this.getTotalSize() + this.options.scrollMargin - this.viewportSize() - (this.scrollOffset ?? 0);
  }

  private viewportSize(): number {
    const rect = this.scrollRect ?? this.options.initialRect;
    return this.options.horizontal ? rect.width : rect.height;
  }
}
