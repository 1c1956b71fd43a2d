// The chat list's rows, virtualized (docs/app.md "History at scale"): only the rows near the viewport exist, so a
// history of ten thousand chats renders and scrolls like one of twenty. The list scrolls in its own box under the
// list's head (New chat, the filter), which stays in place.
import type { JSX } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { SessionSummary } from "../../../client/index.ts";
import { useVirtualizer } from "../components/use-virtualizer.ts";
import { afterPaint, defaultFrames } from "../state/frames.ts";
import { keepRowHeight, keptRowHeight } from "./session-row-height.ts";
import { keepScrollerHeight, scrollerRect } from "./session-scroller-height.ts";

/** Rows rendered past the screen's end, ready for a scroll. */
export const OVERSCAN = 10;
/**
 * The first render's: one row past the screen. The other rows past it are made, laid out and measured after the
 * first paint, not before it, on the cold open's path to the first rows painted (docs/app.md "Start-up", SU11).
 */
export const FIRST_OVERSCAN = 1;

/**
 * FIRST_OVERSCAN until the list's first frame is painted, then OVERSCAN. Not set in an effect: Preact runs an effect
 * after the paint only when nothing renders the list first, and the virtualizer renders it again before the paint
 * once it has measured the scroller, which ran the effect then and put the ten rows in the first frame (SU14).
 */
function useOverscan(): number {
  const [overscan, setOverscan] = useState(FIRST_OVERSCAN);
  useEffect(() => afterPaint(defaultFrames(), () => setOverscan(OVERSCAN)), []);
  return overscan;
}

export function SessionRows({
  list,
  render,
}: {
  list: readonly SessionSummary[];
  render: (session: SessionSummary) => JSX.Element;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const overscan = useOverscan();
  // A row's height before it is measured: the one this device's rows measured at an earlier start.
  const [estimate] = useState(keptRowHeight);
  // The scroller's size until it is measured (SU4, SU16): the virtualizer takes it as 0 otherwise, and the first
  // render holds no row.
  const [initialRect] = useState(scrollerRect);
  const virtualizer = useVirtualizer({
    count: list.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimate,
    onMeasured: (index, size) => {
      if (index === 0) keepRowHeight(size);
    },
    // The same function while the list is the same: a new one makes the virtualizer place every row again (its
    // positions are memoized on it), ten thousand of them at each render of the list, a scroll's frames included.
    getItemKey: useCallback((index: number) => list[index]?.id ?? index, [list]),
    overscan,
    initialRect,
  });
  // Learnt once the first frame is painted, for the next start's first render.
  useEffect(() => afterPaint(defaultFrames(), () => keepScrollerHeight(virtualizer.scrollRect?.height ?? 0)), []);
  const items = virtualizer.getVirtualItems();
  return (
    <div class="session-scroller" ref={scroller}>
      <ul class="session-track" style={{ height: `${virtualizer.getTotalSize()}px` }}>
        {items.map((item) => (
          <li
            key={item.key}
            data-index={item.index}
            ref={virtualizer.measureElement}
            style={{ transform: `translateY(${item.start}px)` }}
          >
            {render(list[item.index]!)}
          </li>
        ))}
      </ul>
    </div>
  );
}
