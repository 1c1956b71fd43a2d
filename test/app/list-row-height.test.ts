// The chat list's rows come in at the height this device's rows measured at an earlier start (docs/app.md
// "Start-up", SU13): the first start keeps the top row's height in localStorage, and a later start's first render
// places its rows there, so no row moves when the rows are measured (before, each row placed at a 60 px estimate
// moved once measured, and the list rendered and laid out again before its first paint).
import { describe, expect, it, vi } from "vitest";
import { ROW_HEIGHT_KEY } from "../../app/src/screens/session-row-height.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/** Set in the page before its scripts: counts the moves of the list's rows (a style change of a row in the page). */
const COUNT_ROW_MOVES = `
  window.__rowMoves = 0;
  new MutationObserver((records) => {
    for (const record of records)
      if (record.target.parentElement?.classList.contains("session-track")) window.__rowMoves += 1;
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["style"] });
`;

describe("the chat list's rows at a start (390x844)", () => {
  it("SU13 keeps the rows' measured height, and a later start's rows do not move when they are measured", async () => {
    const { stack, browser } = shared;
    for (let index = 0; index < 12; index++) await stack.append(await stack.createSession(), `Chat ${index} of a list`);
    const { context, page, errors } = await openPage(browser, PHONE);
    await context.addInitScript(COUNT_ROW_MOVES);
    await pairThroughLink(page, (await stack.createPairing()).pair_url);
    await page.goto(`${stack.serverUrl}/#/`); // pairing opens on a new chat
    const firstRow = page.locator(".session-track > li").first();
    await firstRow.waitFor();
    const measured = await firstRow.evaluate((row) => Math.round(row.getBoundingClientRect().height));
    await expect.poll(() => page.evaluate((key) => localStorage.getItem(key), ROW_HEIGHT_KEY)).toBe(String(measured));
    // The next start: its rows are placed at the kept height from its first render on.
    await page.reload();
    await page.locator(".session-track > li").nth(10).waitFor();
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    expect(await page.evaluate(() => (window as unknown as { __rowMoves: number }).__rowMoves)).toBe(0);
    // The count is live in this page: a style set on a row is counted.
    await page
      .locator(".session-track > li")
      .first()
      .evaluate((row) => (row.style.outline = "1px solid"));
    await expect.poll(() => page.evaluate(() => (window as unknown as { __rowMoves: number }).__rowMoves)).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});
