// @tanstack/virtual-core bound to Preact (the adapter @tanstack/react-virtual is for React; this is its
// dozen lines for hooks): only the rows near the viewport are in the DOM, measured as they render, the measures of a
// render applied together (batched-virtualizer.ts), each told to `onMeasured`. While the screen a scroll brings is
// within the rows already mounted (the overscan above and below it), the render the scroll's event asks for comes in a
// task of its own after the frame that scrolled (docs/app.md LC18): rendered in the scroll event, the rows it mounts, their
// measures and their layout made one task with the frame's own paint, over 50 ms a frame on a throttled phone in a
// fling. A scroll past the mounted rows renders at once, so no frame shows a screen without its rows.
import {
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
  type VirtualizerOptions,
} from "@tanstack/virtual-core";
import { useLayoutEffect, useReducer, useState } from "preact/hooks";
import { BatchedVirtualizer } from "./batched-virtualizer.ts";
import { queueTask } from "../state/frames.ts";

type Options = Pick<
  VirtualizerOptions<HTMLElement, HTMLElement>,
  "count" | "getScrollElement" | "estimateSize" | "getItemKey" | "overscan" | "anchorTo" | "initialRect"
> & { onMeasured?: BatchedVirtualizer["onMeasured"] };

export function useVirtualizer(options: Options): BatchedVirtualizer {
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const [afterFrame] = useState(() => onceInATask(() => rerender(undefined)));
  const { onMeasured, ...library } = options;
  const full = (): VirtualizerOptions<HTMLElement, HTMLElement> => ({
    observeElementRect,
    // The scroll listener's reports are marked: only a render a scroll event asks for may wait (LC18).
    observeElementOffset: (instance, report) =>
      observeElementOffset(instance, (offset, scrolling) =>
        (instance as BatchedVirtualizer).fromScrollEvent(() => report(offset, scrolling)),
      ),
    scrollToFn: elementScroll,
    measureElement,
    onChange: (instance, sync) =>
      (instance as BatchedVirtualizer).renderMayWait(sync) ? afterFrame() : rerender(undefined),
    ...library,
  });
  const [virtualizer] = useState(() => new BatchedVirtualizer(full()));
  virtualizer.setOptions(full());
  virtualizer.onMeasured = onMeasured;
  // First: the rows this render mounted are measured before any effect of the list scrolls (their refs measured
  // them at once before the measures were batched).
  useLayoutEffect(() => {
    virtualizer.measureMounted();
    virtualizer.flushMeasures();
  });
  useLayoutEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => virtualizer._willUpdate());
  return virtualizer;
}

/** `work` in a task of its own, once however many times it is asked for before that task runs. */
function onceInATask(work: () => void): () => void {
  let planned = false;
  return () => {
    if (planned) return;
    planned = true;
    queueTask(() => {
      planned = false;
      work();
    });
  };
}
