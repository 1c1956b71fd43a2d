// The chat list's first painted frame (docs/app.md "Start-up"): what the page holds when the first rows are painted.
import { describe, expect, it, vi } from "vitest";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/**
 * Set in the page before its scripts: when the first row is in the page, the frame that paints it is waited for
 * (a requestAnimationFrame callback runs before that frame's layout and paint, after every task and microtask the
 * render queued), and the rows then in the page are read: how many lie past the scroller's end.
 */
const FIRST_FRAME = `
  window.__firstFrame = undefined;
  const watch = new MutationObserver(() => {
    if (!document.querySelector(".session-track > li")) return;
    watch.disconnect();
    requestAnimationFrame(() => {
      const end = document.querySelector(".session-scroller").getBoundingClientRect().bottom;
      const rows = [...document.querySelectorAll(".session-track > li")];
      window.__firstFrame = { rows: rows.length, past: rows.filter((row) => row.getBoundingClientRect().top >= end).length };
    });
  });
  watch.observe(document, { childList: true, subtree: true });
`;

describe("the chat list's first painted frame (390x844)", () => {
  it("SU14 holds the screen's rows and one more, the rows kept for a scroll after it", async () => {
    const { stack, browser } = shared;
    for (let index = 0; index < 40; index++) await stack.append(await stack.createSession(), `Chat ${index} of a list`);
    const { context, page, errors } = await openPage(browser, PHONE);
    await context.addInitScript(FIRST_FRAME);
    await pairThroughLink(page, (await stack.createPairing()).pair_url);
    await page.goto(`${stack.serverUrl}/#/`);
    await page.locator(".session-track > li").nth(20).waitFor();
    // A start from the cache, its rows' height kept: the cold open.
    await page.reload();
    await page.waitForFunction("window.__firstFrame !== undefined");
    const first = await page.evaluate(
      () => (window as unknown as { __firstFrame: { rows: number; past: number } }).__firstFrame,
    );
    expect(first.past).toBe(1);
    // After it, the rows past the screen kept ready for a scroll.
    await page
      .locator(".session-track > li")
      .nth(first.rows + 5)
      .waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
