// The chat list's row height kept for the next start (app/src/screens/session-row-height.ts; docs/app.md "Start-up",
// SU13): a measured height is kept and read back by a later start; a measure no row has (0 in a page not laid out) and
// a kept value that does not read are passed over, leaving the 60 px estimate.
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryStorage } from "./support.ts";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** The module as a new page loads it (its knowledge of what is kept starts empty). */
const load = () => import("../../app/src/screens/session-row-height.ts");

describe("the chat list's kept row height", () => {
  it("keeps a measured height for the next start, and passes over a measure of 0", async () => {
    const storage = new MemoryStorage();
    vi.stubGlobal("localStorage", storage);
    const first = await load();
    expect(first.keptRowHeight()).toBe(first.ROW_ESTIMATE_PX);
    first.keepRowHeight(0);
    expect(storage.getItem(first.ROW_HEIGHT_KEY)).toBeNull();
    expect(first.keptRowHeight()).toBe(first.ROW_ESTIMATE_PX);
    first.keepRowHeight(62);
    vi.resetModules();
    const next = await load();
    expect(next.keptRowHeight()).toBe(62);
  });

  it("reads a kept value that is no row's height as nothing kept", async () => {
    for (const kept of ["0", "62.4", "9000", '"62"', "not json"]) {
      vi.resetModules();
      const storage = new MemoryStorage();
      vi.stubGlobal("localStorage", storage);
      const module = await load();
      storage.setItem(module.ROW_HEIGHT_KEY, kept);
      expect(module.keptRowHeight()).toBe(module.ROW_ESTIMATE_PX);
    }
  });
});
