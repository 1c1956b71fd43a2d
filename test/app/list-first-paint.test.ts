// The chat list's first painted frame at a start from the cache (docs/app.md "Start-up"): what the page holds when
// the first rows are painted, and what the list did to it before.
import type { Browser } from "playwright-core";
import { describe, expect, it, vi } from "vitest";
import { SCROLLER_SPACE_KEY } from "../../app/src/screens/session-scroller-height.ts";
import type { AppStack } from "./support/app-stack.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/**
 * Set in the page before its scripts: from the first row in the page, the rows taken out of the list are counted
 * until the frame that paints them (a requestAnimationFrame callback runs before that frame's layout and paint,
 * after every task and microtask the render queued); then the rows in the page are read, and how many lie past the
 * scroller's end.
 */
const FIRST_FRAME = `
  window.__firstFrame = undefined;
  let removed = 0;
  const watch = new MutationObserver((records) => {
    for (const record of records)
      if (record.target.classList?.contains("session-track")) removed += record.removedNodes.length;
    if (window.__firstFrame !== undefined || !document.querySelector(".session-track > li")) return;
    window.__firstFrame = null;
    requestAnimationFrame(() => {
      watch.disconnect();
      const end = document.querySelector(".session-scroller").getBoundingClientRect().bottom;
      const rows = [...document.querySelectorAll(".session-track > li")];
      const past = rows.filter((row) => row.getBoundingClientRect().top >= end).length;
      window.__firstFrame = { rows: rows.length, past, removed };
    });
  });
  watch.observe(document, { childList: true, subtree: true });
`;

interface FirstFrame {
  rows: number;
  past: number;
  removed: number;
}

/** A phone's start from the cache after a first visit (40 chats): its first frame, and its page. */
async function startFromCache(stack: AppStack, browser: Browser) {
  for (let index = 0; index < 40; index++) await stack.append(await stack.createSession(), `Chat ${index} of a list`);
  const { context, page, errors } = await openPage(browser, PHONE);
  await context.addInitScript(FIRST_FRAME);
  await pairThroughLink(page, (await stack.createPairing()).pair_url);
  await page.goto(`${stack.serverUrl}/#/`);
  await page.locator(".session-track > li").nth(20).waitFor();
  await page.reload();
  // Polled from outside the page: waitForFunction's string is evaluated in the page, which the app's CSP refuses
  // (no 'unsafe-eval'; it passed only when the frame was in before the first poll).
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { __firstFrame?: FirstFrame }).__firstFrame?.rows))
    .toBeDefined();
  const first = await page.evaluate(() => (window as unknown as { __firstFrame: FirstFrame }).__firstFrame);
  return { context, page, errors, first };
}

describe("the chat list's first painted frame at a start from the cache (390x844)", () => {
  it("SU14 holds the screen's rows and one more, the rows kept for a scroll after it", async () => {
    const { context, page, errors, first } = await startFromCache(shared.stack, shared.browser);
    try {
      expect(first.past).toBe(1);
      // After it, the rows past the screen kept ready for a scroll.
      await page
        .locator(".session-track > li")
        .nth(first.rows + 5)
        .waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("SU16 holds the rows of the list's first render: none taken out before it is painted", async () => {
    const { context, page, errors, first } = await startFromCache(shared.stack, shared.browser);
    try {
      expect(first.removed).toBe(0);
      expect(first.past).toBe(1);
      // What the start placed them by: the space the window has beside the scroller, learnt at the first visit.
      const space = await page.evaluate((key) => Number(localStorage.getItem(key)), SCROLLER_SPACE_KEY);
      const scroller = await page.evaluate(() => document.querySelector(".session-scroller")!.clientHeight);
      expect(space).toBe(PHONE.height - scroller);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
