// The markdown renderer is loaded once the app is idle after its start (docs/app.md "Start-up", SU19): the first chat
// opened then shows its messages rendered in its first frame, never their source text first.
import type { Page } from "playwright-core";
import { describe, expect, it, vi } from "vitest";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/** Set before the app's scripts: whether a message's source text (shown until the renderer is in) was in the page. */
const SOURCE_WATCH = `
  window.__sourceShown = false;
  new MutationObserver(() => {
    if (document.querySelector(".markdown-source")) window.__sourceShown = true;
  }).observe(document, { childList: true, subtree: true });
`;

/** Whether the page has fetched the renderer's chunk (markdown-*.js), from the network or its service worker. */
function rendererFetched(page: Page): Promise<boolean> {
  return page.evaluate(() =>
    performance.getEntriesByType("resource").some((entry) => /\/assets\/markdown-[^/]*\.js$/.test(entry.name)),
  );
}

describe("the markdown renderer at a start", () => {
  it("SU19 is loaded once the app is idle, so the first chat opened shows its markdown rendered at once", async () => {
    const { stack, browser } = shared;
    await stack.append(await stack.createSession(), "Pack **the blue tent** and two stoves");
    const { context, page, errors } = await openPage(browser, PHONE);
    try {
      await pairThroughLink(page, (await stack.createPairing()).pair_url);
      await context.addInitScript(SOURCE_WATCH);
      await page.goto(`${stack.serverUrl}/#/`);
      await page.reload();
      await page.locator(".session-row").first().waitFor();
      // No chat is open, and nothing on the list renders markdown: the app loads the renderer by itself.
      await expect.poll(() => rendererFetched(page), { timeout: 20_000 }).toBe(true);

      await page.locator(".session-row").first().click();
      await page.locator("article.message.user .markdown strong", { hasText: "the blue tent" }).waitFor();
      expect(await page.evaluate(() => (window as unknown as { __sourceShown: boolean }).__sourceShown)).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
