// @tanstack/virtual-core bound to Preact (the adapter @tanstack/react-virtual is for React; this is its
// dozen lines for hooks): only the rows near the viewport are in the DOM, measured as they render, the measures of a
// render applied together (batched-virtualizer.ts), each told to `onMeasured`.
import {
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
  type Virtualizer,
  type VirtualizerOptions,
} from "@tanstack/virtual-core";
import { useLayoutEffect, useReducer, useState } from "preact/hooks";
import { BatchedVirtualizer } from "./batched-virtualizer.ts";

type Options = Pick<
  VirtualizerOptions<HTMLElement, HTMLElement>,
  "count" | "getScrollElement" | "estimateSize" | "getItemKey" | "overscan" | "anchorTo" | "initialRect"
> & { onMeasured?: BatchedVirtualizer["onMeasured"] };

export function useVirtualizer(options: Options): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const { onMeasured, ...library } = options;
  const full = (): VirtualizerOptions<HTMLElement, HTMLElement> => ({
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    measureElement,
    onChange: () => rerender(undefined),
    ...library,
  });
  const [virtualizer] = useState(() => new BatchedVirtualizer(full()));
  virtualizer.setOptions(full());
  virtualizer.onMeasured = onMeasured;
  // First: the rows this render mounted are measured before any effect of the list scrolls (their refs measured
  // them at once before the measures were batched).
  useLayoutEffect(() => virtualizer.flushMeasures());
  useLayoutEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => virtualizer._willUpdate());
  return virtualizer;
}
