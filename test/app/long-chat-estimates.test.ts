// A long chat's rows placed at their height before they are measured (docs/app.md "Long chats", LC17), in Chromium at
// phone size: once rows of a shape (a plain message's role, blocks and lines' lengths) have been measured, the rows of
// an older page of that shape are estimated at that height, so scrolling up through them the transcript's height
// never changes as they mount and are measured (no scroll correction, no second placing of the rows).
import { describe, expect, it, vi } from "vitest";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { postedChat } from "./support/posted-chat.ts";
import { openPage, pairAndOpen, PHONE } from "./support/browser.ts";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

const LENGTH = 300;
/** Every message of a role has the same shape: two lines of plain words, or a paragraph that wraps, as long each time. */
const content = (index: number) =>
  index % 2 === 0
    ? `Question ${String(index).padStart(3, "0")} on its first line\nand on a second line as long every time`
    : `Answer ${String(index).padStart(3, "0")} in a paragraph of plain words that wraps on a phone screen`;

describe("a long chat's row estimates", () => {
  it("places the rows of an older page at the height measured for their shape, so mounting them changes nothing (LC17)", async () => {
    const { stack } = shared;
    const id = await postedChat(stack, LENGTH, content);
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    try {
      await pairAndOpen(page, stack, id);
      const shown = (index: number) => page.locator("article", { hasText: content(index).split("\n")[0]! });
      await shown(LENGTH - 1).waitFor();
      // To the top of the first page: the older page (200 and before) is read and put in front, its rows estimated
      // from the first page's rows measured by then; the rows just above come in with it.
      const log = page.getByRole("log", { name: "Messages" });
      await log.evaluate((element) => (element.scrollTop = 0));
      await shown(LENGTH - 101).waitFor();
      // Until the rows that came with it are measured: the transcript's height the same two frames in a row.
      await log.evaluate(async (element) => {
        const track = element.querySelector<HTMLElement>(".message-track")!;
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        let last = "";
        while (track.style.height !== last) {
          last = track.style.height;
          await frame();
          await frame();
        }
      });
      // Up through the older page's rows, a screen a frame, short of the next page's read (within 30 rows of its
      // top); the transcript's height (the virtualizer's total of the rows' places) at each frame, and each row's.
      const seen = await log.evaluate(async (element) => {
        const track = element.querySelector<HTMLElement>(".message-track")!;
        const heights = [track.style.height];
        const rows = new Set<number>();
        for (let frame = 0; frame < 4; frame++) {
          element.scrollTop = Math.max(0, element.scrollTop - element.clientHeight);
          await new Promise((resolve) => requestAnimationFrame(resolve));
          await new Promise((resolve) => requestAnimationFrame(resolve));
          heights.push(track.style.height);
          for (const row of Array.from(element.querySelectorAll<HTMLElement>(".message-row")))
            rows.add(row.getBoundingClientRect().height);
        }
        return { heights, rows: [...rows] };
      });
      // The rows are not the list's first guess (96 px) tall: a constant estimate would have changed the height.
      expect(seen.rows.filter((height) => Math.round(height) !== 96).length).toBeGreaterThan(0);
      expect(new Set(seen.heights).size).toBe(1);
      // The rows scrolled past were the older page's, not yet the next one's.
      expect(await shown(LENGTH - 101 - 20).count()).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
