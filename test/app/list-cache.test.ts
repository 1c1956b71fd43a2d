// The chat list opens from the device's cache in Chromium at phone size (docs/app.md "History at scale", HS4, and
// "Start from the cache", SC1): with the event catch-up held back, a second visit shows the chats the first one
// cached, and once the server answers the list catches up from the saved event cursor (a chat made meanwhile shows
// in its place at the top, a rename shows) without reading the list again. The cached head is read once, by a read
// started while the modules are evaluated, which leaves no database in a browser never paired ("Start-up", SU7), and
// the people directory is asked for only after the frame that paints the first rows (SU10).
import { describe, expect, it, vi } from "vitest";
import type { BrowserContext, Page, Route } from "playwright-core";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import type { AppStack } from "./support/app-stack.ts";
import type { IncomingMessage } from "node:http";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/** The titles of the chat list's rows, top to bottom. */
const titles = (page: Page) => page.locator(".session-row .session-title").allTextContents();

/** A record of the device's cache's `sessions` store (the list, its head, the event cursor); undefined when absent. */
const cachedRecord = (page: Page, key: string) =>
  page.evaluate(
    (key) =>
      new Promise<unknown>((resolve, reject) => {
        const open = indexedDB.open("chat-relay-cache");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const read = open.result.transaction("sessions").objectStore("sessions").get(key);
          read.onsuccess = () => {
            open.result.close();
            resolve(read.result);
          };
        };
      }),
    key,
  );

/** The ids of the chats the device's cache keeps as the list's first screen. */
const cachedHead = async (page: Page) => {
  const head = (await cachedRecord(page, "sessions_head")) as { chats?: Array<{ id: string }> } | undefined;
  return Array.isArray(head?.chats) ? head.chats.map((chat) => chat.id) : [];
};

/** The event id of the cursor saved with the cached list; undefined before one is saved. */
const savedCursor = async (page: Page) =>
  ((await cachedRecord(page, "event_cursor")) as { event_id?: string })?.event_id;

interface HeadReadWatch {
  /** Opens of the offline database asked for, and those not yet answered (success or error). */
  opens: number;
  pending: number;
  /** Whether the first open was asked for before the app's first render (while its modules were evaluated). */
  openedBeforeRender?: boolean;
  /** Reads of the list's head record. */
  headReads: number;
}

/**
 * Set in every page of the context before its scripts (SU7): when the page opens the offline database and how often
 * it reads the list's head (page.evaluate(() => window.__headRead) reads it).
 */
async function watchHeadReads(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: HeadReadWatch = { opens: 0, pending: 0, headReads: 0 };
    (window as unknown as { __headRead: HeadReadWatch }).__headRead = seen;
    const open = IDBFactory.prototype.open;
    IDBFactory.prototype.open = function (this: IDBFactory, name: string, version?: number) {
      const request = version === undefined ? open.call(this, name) : open.call(this, name, version);
      if (name !== "chat-relay-cache") return request;
      seen.openedBeforeRender ??= document.getElementById("root")?.childElementCount === 0;
      seen.opens++;
      seen.pending++;
      const settled = () => seen.pending--;
      request.addEventListener("success", settled);
      request.addEventListener("error", settled);
      return request;
    };
    const get = IDBObjectStore.prototype.get;
    IDBObjectStore.prototype.get = function (this: IDBObjectStore, key: IDBValidKey | IDBKeyRange) {
      if (this.name === "sessions" && key === "sessions_head") seen.headReads++;
      return get.call(this, key);
    };
  });
}

const headReadWatch = (page: Page) =>
  page.evaluate(() => ({ ...(window as unknown as { __headRead: HeadReadWatch }).__headRead }));

interface FirstPaintWatch {
  /** Whether the frame that paints the first chat row has begun (its animation callbacks ran). */
  rowsFrame: boolean;
  /** The people directory's requests (`/people/...`) asked for before that frame, and in all. */
  peopleBeforeRows: number;
  people: number;
}

/**
 * Set in every page of the context before its scripts (SU10): which of the people directory's requests the page
 * asks for before the frame that paints its first chat row.
 */
async function watchFirstPaint(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: FirstPaintWatch = { rowsFrame: false, peopleBeforeRows: 0, people: 0 };
    (window as unknown as { __firstPaint: FirstPaintWatch }).__firstPaint = seen;
    const pageFetch = window.fetch;
    window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input), location.href);
      if (url.pathname.startsWith("/people/")) {
        seen.people++;
        if (!seen.rowsFrame) seen.peopleBeforeRows++;
      }
      return pageFetch(input, init);
    };
    const rows = new MutationObserver(() => {
      if (!document.querySelector(".session-row")) return;
      rows.disconnect();
      requestAnimationFrame(() => (seen.rowsFrame = true));
    });
    rows.observe(document, { childList: true, subtree: true });
  });
}

const firstPaintWatch = (page: Page) =>
  page.evaluate(() => ({ ...(window as unknown as { __firstPaint: FirstPaintWatch }).__firstPaint }));

/** Counts the chat list's page reads (GET /sessions?limit=…) the server answers from now on. */
function countListReads(stack: AppStack): { readonly count: number; stop(): void } {
  let count = 0;
  const server = stack.server.runtime.app.server;
  const seen = (request: IncomingMessage) => {
    const url = new URL(request.url ?? "/", "http://server");
    if (request.method === "GET" && url.pathname === "/sessions" && url.searchParams.has("limit")) count++;
  };
  server.on("request", seen);
  return {
    get count() {
      return count;
    },
    stop: () => void server.off("request", seen),
  };
}

describe("the chat list from the device's cache", () => {
  it("shows the cached chats before any round trip, then applies what changed while closed from the event cursor, with no list read (HS4)", async () => {
    const { stack } = shared;
    const first = await stack.createSession();
    await stack.append(first, "Cached chat one");
    const second = await stack.createSession();
    await stack.append(second, "Cached chat two");
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    try {
      await watchHeadReads(context);
      // Never paired: the start's early read of the cached list (SU7) is answered and leaves no database behind.
      await page.goto(stack.serverUrl);
      await page.locator(".pair-screen").waitFor();
      await expect.poll(() => headReadWatch(page), { timeout: 30_000 }).toMatchObject({ opens: 1, pending: 0 });
      const databases = await page.evaluate(async () => (await indexedDB.databases()).map((entry) => entry.name));
      expect(databases).not.toContain("chat-relay-cache");

      await pairThroughLink(page, (await stack.createPairing()).pair_url);
      await page.goto(`${stack.serverUrl}/#/`); // pairing opens on a new chat
      await page.locator(".session-row", { hasText: "Cached chat two" }).waitFor();
      await expect.poll(() => cachedHead(page)).toEqual([second, first]);
      // The walk of the list ended and was kept: the cursor it reflects is saved with it.
      await expect.poll(() => savedCursor(page)).toBe(stack.latestId());
      await page.close();

      // Made while the device was away: a new chat, and a rename of the oldest.
      const third = await stack.createSession();
      await stack.append(third, "Made while away");
      await stack.server.request({ method: "PATCH", url: `/sessions/${first}`, payload: { title: "Renamed away" } });
      const listReads = countListReads(stack);
      await watchFirstPaint(context);
      const again = await context.newPage();
      again.on("pageerror", (error) => errors.push(error.message));
      const held: Route[] = [];
      const events = (url: URL) => url.pathname.endsWith("/events");
      await again.route(events, (route) => void held.push(route));
      await again.goto(stack.serverUrl);
      // The catch-up was asked for and has not been answered: what shows came from the device.
      await again.locator(".session-row", { hasText: "Cached chat one" }).waitFor();
      await expect.poll(() => held.length).toBeGreaterThan(0);
      expect(await titles(again)).toEqual(["Cached chat two", "Cached chat one"]);
      // The head was read once, by a read asked for while the modules were evaluated, before the first render.
      expect(await headReadWatch(again)).toMatchObject({ openedBeforeRender: true, headReads: 1 });
      // The people directory is asked for once the rows' frame has begun, not before it (SU10).
      await expect.poll(() => firstPaintWatch(again)).toMatchObject({ rowsFrame: true, people: 2 });
      expect((await firstPaintWatch(again)).peopleBeforeRows).toBe(0);

      await again.unroute(events);
      // A held read the client gave up on (aborted) is already handled; the others go on.
      await Promise.all(held.map((route) => route.continue().catch(() => undefined)));
      await again.locator(".session-row", { hasText: "Renamed away" }).waitFor();
      expect(await titles(again)).toEqual(["Renamed away", "Made while away", "Cached chat two"]);
      await expect.poll(() => cachedHead(again)).toEqual([first, third, second]);
      await expect.poll(() => savedCursor(again)).toBe(stack.latestId());
      // Caught up from the cursor alone: the server saw no read of the list.
      expect(listReads.count).toBe(0);
      listReads.stop();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
