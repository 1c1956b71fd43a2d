// @tanstack/virtual-core bound to Preact (the adapter @tanstack/react-virtual is for React; this is its
// dozen lines for hooks): only the rows near the viewport are in the DOM, measured as they render.
import {
  elementScroll,
  measureElement,
  observeElementOffset,
  observeElementRect,
  Virtualizer,
  type VirtualizerOptions,
} from "@tanstack/virtual-core";
import { useLayoutEffect, useReducer, useState } from "preact/hooks";

type Options = Pick<
  VirtualizerOptions<HTMLElement, HTMLElement>,
  "count" | "getScrollElement" | "estimateSize" | "getItemKey" | "overscan" | "anchorTo" | "initialRect"
>;

export function useVirtualizer(options: Options): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const full = (): VirtualizerOptions<HTMLElement, HTMLElement> => ({
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    measureElement,
    onChange: () => rerender(undefined),
    ...options,
  });
  const [virtualizer] = useState(() => new Virtualizer<HTMLElement, HTMLElement>(full()));
  virtualizer.setOptions(full());
  useLayoutEffect(() => virtualizer._didMount(), []);
  useLayoutEffect(() => virtualizer._willUpdate());
  return virtualizer;
}
