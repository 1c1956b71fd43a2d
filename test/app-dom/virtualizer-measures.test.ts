// @vitest-environment happy-dom
// The virtualizer's binding measures a render's rows together (docs/app.md "Long chats", LC15): however many rows a
// render mounts far from the list's end, the rows' positions are placed about once for them, not once per row (each
// placing asks every row from the lowest measured to the last for its key, counted here through getItemKey).
import { cleanup, render } from "@testing-library/preact";
import { h } from "preact";
import { useRef } from "preact/hooks";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { useVirtualizer } from "../../app/src/components/use-virtualizer.ts";

const COUNT = 3000;
/** What happy-dom gives a row for its height (it lays nothing out): not the 96 px estimate, so every row resizes. */
const ROW_PX = 40;
const SCREEN_PX = 800;

beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, "clientHeight", { configurable: true, get: () => SCREEN_PX });
  Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => 390 });
  Object.defineProperty(HTMLElement.prototype, "offsetHeight", {
    configurable: true,
    get(this: HTMLElement) {
      return this.hasAttribute("data-index") ? ROW_PX : 0;
    },
  });
});
afterEach(cleanup);

/** A transcript-like list (anchored to its end, as the transcript is) that counts the keys the virtualizer asks for. */
function List({ keysAsked }: { keysAsked: { count: number } }) {
  const scroller = useRef<HTMLDivElement>(null);
  const keyOf = useRef((index: number) => (keysAsked.count++, `row-${index}`)).current;
  const virtualizer = useVirtualizer({
    count: COUNT,
    getScrollElement: () => scroller.current,
    estimateSize: () => 96,
    getItemKey: keyOf,
    overscan: 6,
    anchorTo: "end",
  });
  const items = virtualizer.getVirtualItems();
  return h(
    "div",
    { ref: scroller, style: { overflow: "auto", height: `${SCREEN_PX}px` } },
    h(
      "div",
      { style: { height: `${virtualizer.getTotalSize()}px` } },
      items.map((item) =>
        h("div", { "key": item.key, "data-index": item.index, "ref": virtualizer.measureElement }, "row"),
      ),
    ),
  );
}

/** The renders and measures a mount brings: Preact renders again, and the binding applies measures, in microtasks. */
async function settled(): Promise<void> {
  for (let turn = 0; turn < 50; turn++) await Promise.resolve();
}

describe("the virtualizer's measures", () => {
  it("LC15 a render's rows measured far from the end place the list's rows about once, not once per row", async () => {
    const keysAsked = { count: 0 };
    const { container } = render(h(List, { keysAsked }));
    await settled();
    const rows = container.querySelectorAll("[data-index]").length;
    // A screen of 40 px rows and the overscan: more than a handful, so once per row would be many placings.
    expect(rows).toBeGreaterThan(20);
    const placings = keysAsked.count / COUNT;
    expect(placings).toBeLessThan(8);
  });
});
