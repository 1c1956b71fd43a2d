// The chat list opens from the device's cache in Chromium at phone size (docs/app.md "History at scale", HS4): with
// the server's list held back, a second visit shows the chats the first one cached, and once the server answers the
// list catches up (a chat made meanwhile shows, in its place at the top).
import { describe, expect, it, vi } from "vitest";
import type { Page, Route } from "playwright-core";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/** The titles of the chat list's rows, top to bottom. */
const titles = (page: Page) => page.locator(".session-row .session-title").allTextContents();

/** The ids of the chats the device's cache keeps as the list's first screen. */
const cachedHead = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const open = indexedDB.open("chat-relay-cache");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const read = open.result.transaction("sessions").objectStore("sessions").get("sessions_head");
          read.onsuccess = () => {
            open.result.close();
            resolve(Array.isArray(read.result) ? read.result.map((chat: { id: string }) => chat.id) : []);
          };
        };
      }),
  );

describe("the chat list from the device's cache", () => {
  it("shows the cached chats while the server's list is held back, then catches up when it answers (HS4)", async () => {
    const { stack } = shared;
    const first = await stack.createSession();
    await stack.append(first, "Cached chat one");
    const second = await stack.createSession();
    await stack.append(second, "Cached chat two");
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    try {
      await pairThroughLink(page, (await stack.createPairing()).pair_url);
      await page.goto(`${stack.serverUrl}/#/`); // pairing opens on a new chat
      await page.locator(".session-row", { hasText: "Cached chat two" }).waitFor();
      await expect.poll(() => cachedHead(page)).toEqual([second, first]);
      await page.close();

      // Made while the device was away: only the server's list can bring it.
      const third = await stack.createSession();
      await stack.append(third, "Made while away");
      const again = await context.newPage();
      again.on("pageerror", (error) => errors.push(error.message));
      const held: Route[] = [];
      await again.route(
        (url) => url.pathname.endsWith("/sessions") && url.searchParams.has("limit"),
        (route) => void held.push(route),
      );
      await again.goto(stack.serverUrl);
      await again.locator(".session-row", { hasText: "Cached chat one" }).waitFor();
      // The list's first page was asked for and has not been answered: what shows came from the device.
      await expect.poll(() => held.length).toBeGreaterThan(0);
      expect(await titles(again)).toEqual(["Cached chat two", "Cached chat one"]);

      await again.unroute((url) => url.pathname.endsWith("/sessions") && url.searchParams.has("limit"));
      await Promise.all(held.map((route) => route.continue()));
      await again.locator(".session-row", { hasText: "Made while away" }).waitFor();
      expect(await titles(again)).toEqual(["Made while away", "Cached chat two", "Cached chat one"]);
      await expect.poll(() => cachedHead(again)).toEqual([third, second, first]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
