// A scroll's rows measured in the render that mounts them (docs/app.md "Long chats", LC19), in Chromium at phone size:
// the rows a scroll brings into the page, in the render after its frame (LC18), have their heights applied to the list
// in that render's task, so the next frame's ResizeObserver finds nothing to correct: the transcript's height and
// the rows' places stay as that task left them.
import { describe, expect, it, vi } from "vitest";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { postedChat } from "./support/posted-chat.ts";
import { openPage, pairAndOpen, PHONE } from "./support/browser.ts";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

const LENGTH = 100;
/** Each message a different length (one to a dozen lines): no row's shape was measured before it mounts (LC17). */
const content = (index: number) => `Row ${index} says ${"word ".repeat(3 + index)}`.trim();

describe("a long chat's rows measured as they mount", () => {
  it("applies the heights of the rows a scroll mounts in the render that mounts them, not in the next frame (LC19)", async () => {
    const { stack } = shared;
    const id = await postedChat(stack, LENGTH, content);
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    try {
      await pairAndOpen(page, stack, id);
      await page.locator("article", { hasText: content(LENGTH - 1) }).waitFor();
      const log = page.getByRole("log", { name: "Messages" });
      // Settled at the end: the overscan's rows above the screen mounted, and the list's height no longer changing.
      await log.evaluate(async (element) => {
        const track = element.querySelector<HTMLElement>(".message-track")!;
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        const above = () =>
          Array.from(element.querySelectorAll(".message-row")).filter(
            (row) => row.getBoundingClientRect().bottom <= element.getBoundingClientRect().top,
          ).length;
        let last = "";
        while (above() < 6 || track.style.height !== last) {
          last = track.style.height;
          await frame();
          await frame();
        }
      });
      // Three times: onto the highest row in the page (the scroll's render then waits for a task after its frame,
      // LC18), the list's height one task after that frame, and again after the next frame, where the browser reports
      // the new rows' sizes to the list's ResizeObserver.
      const steps = await log.evaluate(async (element) => {
        const track = element.querySelector<HTMLElement>(".message-track")!;
        const indices = () =>
          Array.from(element.querySelectorAll<HTMLElement>(".message-row")).map((row) => Number(row.dataset.index));
        const task = () =>
          new Promise((resolve) => {
            const channel = new MessageChannel();
            channel.port1.onmessage = resolve;
            channel.port2.postMessage(null);
          });
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        const seen = [];
        for (let step = 0; step < 3; step++) {
          const before = indices();
          const box = element.getBoundingClientRect();
          const tops = Array.from(element.querySelectorAll(".message-row")).map(
            (row) => row.getBoundingClientRect().top,
          );
          element.scrollTop = Math.min(...tops) - box.top + element.scrollTop + 8;
          await frame();
          await task();
          const mounted = indices().filter((index) => !before.includes(index));
          const rendered = track.style.height;
          await frame();
          await task();
          seen.push({ mounted, rendered, measured: track.style.height });
          // Still, so that the next step's scroll starts from rows that are all measured.
          let last = "";
          while (track.style.height !== last) {
            last = track.style.height;
            await frame();
            await frame();
          }
        }
        return seen;
      });
      for (const step of steps) {
        expect(step.mounted.length).toBeGreaterThan(0);
        expect(step.measured).toBe(step.rendered);
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
