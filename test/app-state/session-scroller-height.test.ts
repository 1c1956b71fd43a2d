// The space the window has beside the chat list's scroller, kept for the next start
// (app/src/screens/session-scroller-height.ts; docs/app.md "Start-up", SU16): the next start's first render takes the
// scroller's height from it; a measure no laid-out scroller has (0) and a kept value that does not read are passed
// over, leaving the window's height.
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryStorage } from "./support.ts";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** The module as a new page loads it, in a phone's window (its knowledge of what is kept starts empty). */
const load = () => {
  vi.stubGlobal("window", { innerWidth: 390, innerHeight: 844 });
  return import("../../app/src/screens/session-scroller-height.ts");
};

describe("the chat list's scroller before it is measured", () => {
  it("takes the window's height, less the space an earlier start measured beside the scroller", async () => {
    const storage = new MemoryStorage();
    vi.stubGlobal("localStorage", storage);
    const first = await load();
    expect(first.scrollerRect()).toEqual({ width: 390, height: 844 });
    first.keepScrollerHeight(0);
    expect(storage.getItem(first.SCROLLER_SPACE_KEY)).toBeNull();
    first.keepScrollerHeight(713);
    expect(storage.getItem(first.SCROLLER_SPACE_KEY)).toBe("131");
    vi.resetModules();
    const next = await load();
    expect(next.scrollerRect()).toEqual({ width: 390, height: 713 });
  });

  it("takes the window's height where the space kept leaves less than a scroller (kept at another window's size)", async () => {
    vi.stubGlobal("localStorage", new MemoryStorage());
    const module = await load();
    localStorage.setItem(module.SCROLLER_SPACE_KEY, "830");
    expect(module.scrollerRect()).toEqual({ width: 390, height: 844 });
  });

  it.each(["-1", "131.5", "9000", '"131"', "not json"])("reads %s kept as no space beside a scroller", async (kept) => {
    vi.stubGlobal("localStorage", new MemoryStorage());
    const module = await load();
    localStorage.setItem(module.SCROLLER_SPACE_KEY, kept);
    expect(module.scrollerRect()).toEqual({ width: 390, height: 844 });
  });
});
