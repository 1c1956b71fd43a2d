// The chat list's rows, virtualized (docs/app.md "History at scale"): only the rows near the viewport exist, so a
// history of ten thousand chats renders and scrolls like one of twenty. The list scrolls in its own box under the
// list's head (New chat, the filter), which stays in place.
import type { JSX } from "preact";
import { useRef } from "preact/hooks";
import type { SessionSummary } from "../../../client/index.ts";
import { useVirtualizer } from "../components/use-virtualizer.ts";

/** A row's height before it is measured: a title line and a meta line (.session-row's 56 px and its gap). */
const ROW_ESTIMATE_PX = 60;

/**
 * The scroller's size until it is measured: the window's. The virtualizer otherwise takes it as 0 until its first
 * layout effect measures the scroller, so the list's first render holds no row and the rows come in a second render
 * and layout, on the cold open's path to the first rows painted (docs/app.md "Start-up", SU4).
 */
const windowRect = () => ({ width: window.innerWidth, height: window.innerHeight });

export function SessionRows({
  list,
  render,
}: {
  list: readonly SessionSummary[];
  render: (session: SessionSummary) => JSX.Element;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: list.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_ESTIMATE_PX,
    getItemKey: (index) => list[index]?.id ?? index,
    overscan: 10,
    initialRect: windowRect(),
  });
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
