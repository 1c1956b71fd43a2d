// "Search chats" in Chromium over a real server and bridge (issue 22 item 4; docs/app.md S7, S8), at 390x844 and
// 1280x800: Ctrl/Cmd+K and the button open it, the server's results show title and snippet with the matches in
// <mark> (the snippet's "<b>" stays text), and a result opens its chat scrolled to that message, highlighted.
// axe-core finds no serious violation with the results open. APP_SCREENSHOTS=1 also writes the search screenshots of docs/app/.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AppStack } from "./support/app-stack.ts";
import { axeSerious } from "./support/axe.ts";
import { DESKTOP, launchBrowser, openPage, PHONE, SHOTS } from "./support/browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });
let stack: AppStack;
let browser: Browser;
let sessionId: string;
/** Where the match is: far above the bottom, so opening the result has to scroll to it. */
const TARGET = 6;

beforeAll(async () => {
  [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
  sessionId = await stack.createSession();
  await stack.append(sessionId, "How do I repot a fiddle leaf fig?");
  for (let index = 1; index < 60; index += 1) {
    const text =
      index === TARGET
        ? "Repotting the <b>fiddle</b> fig: water it the day before, then loosen the roots."
        : `filler message ${index} about watering`;
    await stack.append(sessionId, text);
  }
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function pairedPage(viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser, viewport);
  await opened.page.goto((await stack.createPairing()).pair_url);
  await opened.page.locator('.connection[data-state="live"]').waitFor();
  return opened;
}

describe.each([
  ["phone", PHONE],
  ["desktop", DESKTOP],
] as const)("Search chats (%s)", (label, viewport) => {
  it("finds a message, marks the matches, and opens the chat at it (S7)", async () => {
    const { page, errors } = await pairedPage(viewport);
    await page.keyboard.press("Control+k");
    const box = page.getByRole("searchbox", { name: "Search chats" });
    await box.fill("fidd repot");
    const result = page.getByRole("list", { name: "Search results" }).getByRole("link", { name: /loosen the roots/ });
    await result.waitFor();
    expect(await result.locator("mark").allTextContents()).toEqual(["Repotting", "fiddle"]);
    expect(await result.locator("b").count()).toBe(0);
    expect(await result.textContent()).toContain("<b>fiddle</b>");
    expect(await axeSerious(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}search-${label}.png` });
    await result.click();
    await page.waitForURL(`**#/s/${sessionId}`);
    const row = page.locator(".message-row.search-focus", { hasText: "loosen the roots" });
    await row.waitFor();
    expect(await row.isVisible()).toBe(true);
    // In view: the row overlaps the transcript's visible box.
    const [rowBox, scroller] = await Promise.all([
      row.boundingBox(),
      page.getByRole("log", { name: "Messages" }).boundingBox(),
    ]);
    expect(rowBox!.y + rowBox!.height).toBeGreaterThan(scroller!.y);
    expect(rowBox!.y).toBeLessThan(scroller!.y + scroller!.height);
    expect(errors).toEqual([]);
  });

  it("opens from the button; a query with no match says so (S8)", async () => {
    const { page, errors } = await pairedPage(viewport);
    await page.getByRole("button", { name: "Search chats" }).click();
    await page.getByRole("searchbox", { name: "Search chats" }).fill("xylophone");
    await page.getByText("No chat matches “xylophone”.").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("searchbox", { name: "Search chats" }).waitFor({ state: "detached" });
    expect(errors).toEqual([]);
  });
});

describe("Search chats from the keyboard", () => {
  it("Down moves from the box to the first result and Enter opens it; Up returns to the box (S9)", async () => {
    const { page, errors } = await pairedPage(PHONE);
    await page.keyboard.press("Control+k");
    const box = page.getByRole("searchbox", { name: "Search chats" });
    await box.fill("loosen roots");
    const result = page.getByRole("list", { name: "Search results" }).getByRole("link", { name: /loosen the roots/ });
    await result.waitFor();
    await page.keyboard.press("ArrowDown");
    expect(await result.evaluate((link) => link === document.activeElement)).toBe(true);
    await page.keyboard.press("ArrowUp");
    expect(await box.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.waitForURL(`**#/s/${sessionId}`);
    await page.locator(".message-row.search-focus", { hasText: "loosen the roots" }).waitFor();
    expect(errors).toEqual([]);
  });
});
