// A long chat in Chromium at phone size (docs/app.md "Long chats", invariants LC1-LC8, LC10, LC12, LC13, LC16, LC18): it opens at its end from one
// read of its last messages (never the whole chat) and mounts only the end's rows, the newest first to get their
// toolbars, its first paint only those on the screen, scrolling up reads the older pages
// one by one and puts them above without moving what the reader sees, down to the chat's first message, and a
// streamed reply still appends at the end. A fast scroll mounts rows with their text as written and their toolbars to
// come (past the frame's first rows, as sketches: their text and nothing else), completed once the page is still,
// without moving the row at the top of the view. The composer's controls (LC13) and the header's chat controls (LC16)
// are built once the chat's rows are painted, in places kept their size, so the transcript does not move when they
// come.
import { describe, expect, it, vi } from "vitest";
import { chunk, pieces } from "../../scripts/scripted-backend/index.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { postedChat } from "./support/posted-chat.ts";
import { DESKTOP, openPage, pairAndOpen, pairThroughLink, PHONE, SHOTS } from "./support/browser.ts";
import type { AppStack } from "./support/app-stack.ts";
import type { Page } from "playwright-core";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

const LENGTH = 330;
const text = (index: number) => `long chat message ${index}.`;

/** A chat of `length` messages, user and assistant in turn, straight into the server. */
const longChat = (stack: AppStack, length = LENGTH, content = text) => postedChat(stack, length, content);

const article = (page: Page, index: number) => page.locator("article", { hasText: text(index) });
const scroller = (page: Page) => page.getByRole("log", { name: "Messages" });

/** The screen's top (px) of the message at `index`, or undefined when its row is not in the page. */
const topOf = (page: Page, index: number) =>
  page.evaluate((wanted) => {
    const found = Array.from(document.querySelectorAll("article")).find((item) => item.textContent?.includes(wanted));
    return found?.getBoundingClientRect().top;
  }, text(index));

/**
 * A screenshot taken as if the fling went on: a scroll event every 50 ms keeps the page from being still, so the rows
 * show what a fast scroll shows (text as written, toolbars to come) however long the screenshot takes.
 */
async function shotWhileScrolling(page: Page, path: string): Promise<void> {
  await scroller(page).evaluate((element) => {
    (window as unknown as { flinging: number }).flinging = window.setInterval(
      () => element.dispatchEvent(new Event("scroll")),
      50,
    );
  });
  try {
    await page.screenshot({ path });
  } finally {
    await page.evaluate(() => clearInterval((window as unknown as { flinging: number }).flinging));
  }
}

/** The still phone, then a fling and the still page at desktop size (docs/app.md "Long chats"). */
async function shotsOfAFling(page: Page, incomplete: () => Promise<number>): Promise<void> {
  await page.screenshot({ path: `${SHOTS}long-chat-still-phone.png` });
  // Rows rendered before come from the renderer's cache at once: what the desktop fling shows paced is toolbars.
  await page.setViewportSize(DESKTOP);
  await expect.poll(incomplete).toBe(0);
  await scroller(page).evaluate(async (element) => {
    for (let frame = 0; frame < 4; frame++) {
      element.scrollTop = Math.max(0, element.scrollTop - element.clientHeight);
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  });
  await shotWhileScrolling(page, `${SHOTS}long-chat-fling-desktop.png`);
  await expect.poll(incomplete).toBe(0);
  await page.screenshot({ path: `${SHOTS}long-chat-still-desktop.png` });
}

describe("long chats", () => {
  it("open at their end from one read of the last messages, mounting only the end's rows with the newest rows' toolbars first, paint only the rows on the screen first, read older pages upward without a jump, each put in front in a task after its answer's, and still stream (LC1-LC4, LC6, LC8, LC12)", async () => {
    const { stack } = shared;
    const id = await longChat(stack);
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    const reads: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith(`/sessions/${id}`)) reads.push(`${url.pathname}${url.search}`);
    });
    try {
      await pairThroughLink(page, (await stack.createPairing()).pair_url);
      // Every message row the page ever mounts, from before the chat opens; and, as the first rows mount, which of them
      // have their toolbar in full (the rest get theirs once the page is still).
      // And in the frame that paints the last message (its animation callbacks run before its paint), how many rows
      // are mounted and how many of them lie wholly outside the transcript's view.
      await page.evaluate(
        (last) => {
          const seen: string[] = [];
          type FirstPaint = { rows: number; offScreen: number };
          const watched = window as unknown as { mounted: string[]; firstToolbars?: string[]; firstPaint?: FirstPaint };
          watched.mounted = seen;
          let lastSeen = false;
          const countRows = () => {
            const view = document.querySelector('[role="log"]')!.getBoundingClientRect();
            const rows = Array.from(document.querySelectorAll(".message-row"), (row) => row.getBoundingClientRect());
            const offScreen = rows.filter((row) => row.bottom <= view.top || row.top >= view.bottom).length;
            watched.firstPaint = { rows: rows.length, offScreen };
          };
          new MutationObserver(() => {
            const items = Array.from(document.querySelectorAll("article"));
            items.forEach((item) => seen.push(item.textContent ?? ""));
            if (watched.firstToolbars === undefined && items.length > 0)
              watched.firstToolbars = items
                .filter((item) => item.querySelector('button[aria-label="Copy message"]') !== null)
                .map((item) => item.textContent ?? "");
            if (!lastSeen && items.some((item) => item.textContent?.includes(last))) {
              lastSeen = true;
              requestAnimationFrame(countRows);
            }
          }).observe(document.body, { childList: true, subtree: true });
        },
        text(LENGTH - 1),
      );
      await page.goto(`${stack.serverUrl}/#/s/${id}`);
      // LC1: the end shows first, from the last page only.
      await article(page, LENGTH - 1).waitFor();
      expect(await article(page, 0).count()).toBe(0);
      expect(reads).toContain(`/sessions/${id}/messages?limit=100`);
      // No read of the whole chat: GET /sessions/{id} and /sessions/{id}/messages only come with a limit.
      const whole = new RegExp(`^/sessions/${id}(/messages)?(\\?(?!.*limit)|$)`);
      expect(reads.filter((read) => whole.test(read))).toEqual([]);
      // LC4: opened at its end, the page mounts the end's rows only, never the top of the first page on the way there.
      const mounted = await page.evaluate(() => (window as unknown as { mounted: string[] }).mounted);
      const indices = mounted.map((row) => Number(/long chat message (\d+)\./.exec(row)?.[1])).filter(Number.isFinite);
      expect(indices.length).toBeGreaterThan(0);
      expect(Math.min(...indices)).toBeGreaterThan(LENGTH - 40);
      // LC6: the frame's two full toolbars go to the newest rows, the ones read first, not to the top of the screen.
      const firstToolbars = await page.evaluate(() => (window as unknown as { firstToolbars: string[] }).firstToolbars);
      const withToolbar = firstToolbars.map((row) => Number(/long chat message (\d+)\./.exec(row)?.[1]));
      expect(withToolbar).toEqual([LENGTH - 2, LENGTH - 1]);
      // LC8: the frame that paints the end holds only the rows on the screen (one at most past its edge); the rows
      // around it come after that paint.
      const firstPaint = () => page.evaluate(() => (window as unknown as { firstPaint?: object }).firstPaint);
      await expect.poll(firstPaint).toBeDefined();
      const painted = (await firstPaint()) as { rows: number; offScreen: number };
      expect(painted.rows).toBeGreaterThan(1);
      expect(painted.offScreen).toBeLessThanOrEqual(1);
      const rowsAbove = () =>
        page.evaluate(() => {
          const top = document.querySelector('[role="log"]')!.getBoundingClientRect().top;
          return Array.from(document.querySelectorAll(".message-row")).filter(
            (row) => row.getBoundingClientRect().bottom <= top,
          ).length;
        });
      await expect.poll(rowsAbove).toBeGreaterThan(1);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}long-chat-phone.png` });

      // LC2: at the top of what is loaded, the older page comes in above and the message on screen stays put.
      const firstLoaded = LENGTH - 100;
      // The older page's read is held until the message at the top has been measured where it stands.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const olderPage = (url: URL) => url.search === `?messages_limit=100&messages_before=${firstLoaded}`;
      await page.route(olderPage, async (route) => {
        await held;
        await route.continue();
      });
      // An instant jump to the top (a wheel's smooth scroll goes on to its target after the page came in).
      await scroller(page).evaluate((element) => (element.scrollTop = 0));
      await article(page, firstLoaded).waitFor();
      await expect.poll(() => reads.some((read) => read.includes(`messages_before=${firstLoaded}`))).toBe(true);
      const before = await topOf(page, firstLoaded);
      release();
      await article(page, firstLoaded - 1).waitFor({ state: "attached" });
      const after = await topOf(page, firstLoaded);
      expect(before).toBeDefined();
      expect(Math.abs(after! - before!)).toBeLessThan(2);
      await page.unroute(olderPage);
      // LC12: from here, each older page's answer is marked for the task it arrives in (its text read, until that task
      // ends), and every change the transcript's rows see in such a task is counted: the page is put in front later.
      await scroller(page).evaluate((element) => {
        const watched = window as unknown as { answers: number; changedInAnswerTask: number };
        watched.answers = 0;
        watched.changedInAnswerTask = 0;
        let inAnswerTask = false;
        const text = Response.prototype.text;
        Response.prototype.text = function (this: Response) {
          const read = text.call(this);
          if (!this.url.includes("messages_before=")) return read;
          return read.then((body) => {
            watched.answers++;
            inAnswerTask = true;
            // Not a wait: a task queued now runs once this one has ended (before the app's own, queued later).
            window.setTimeout(() => (inAnswerTask = false));
            return body;
          });
        };
        // Its callbacks run at the end of the task that changed the rows.
        new MutationObserver(() => void (inAnswerTask && watched.changedInAnswerTask++)).observe(element, {
          childList: true,
          attributes: true,
          subtree: true,
        });
      });
      // Up again, page by page, to the chat's first message.
      for (let start = firstLoaded - 100; start > 0; start -= 100) {
        await scroller(page).evaluate((element) => (element.scrollTop = 0));
        await article(page, start - 1).waitFor({ state: "attached" });
      }
      const answerTasks = await page.evaluate(() => {
        const { answers, changedInAnswerTask } = window as unknown as { answers: number; changedInAnswerTask: number };
        return { answers, changedInAnswerTask };
      });
      expect(answerTasks).toEqual({ answers: Math.ceil(firstLoaded / 100) - 1, changedInAnswerTask: 0 });
      await scroller(page).evaluate((element) => (element.scrollTop = 0));
      await article(page, 0).waitFor();
      expect(reads.filter((read) => read.includes("messages_limit=100&messages_before")).length).toBe(
        Math.ceil(firstLoaded / 100),
      );

      // LC3: back at the bottom, a streamed reply appends after the last message.
      await scroller(page).evaluate((element) => (element.scrollTop = element.scrollHeight));
      const reply = "A reply streamed into the long chat.";
      stack.backend.script({
        kind: "stream",
        parts: [
          { data: chunk({ role: "assistant", content: "" }) },
          ...pieces(reply, 4).map((piece) => ({ data: chunk({ content: piece }) })),
          { data: chunk({}, "stop") },
        ],
      });
      const message = page.getByRole("textbox", { name: "Message" });
      await message.fill("one more question");
      await message.press("Enter");
      await page.locator('article[data-role="assistant"]:not([data-streaming])', { hasText: reply }).waitFor();
      const order = await page.evaluate(() =>
        Array.from(document.querySelectorAll("article"))
          .map((item) => item.textContent ?? "")
          .slice(-3),
      );
      expect(order[0]).toContain(text(LENGTH - 1));
      expect(order[1]).toContain("one more question");
      expect(order[2]).toContain(reply);
      expect(errors).toEqual([]);
      if (SHOTS) {
        await page.setViewportSize(DESKTOP);
        await page.locator("article", { hasText: reply }).waitFor();
        await page.screenshot({ path: `${SHOTS}long-chat-desktop.png` });
      }
    } finally {
      await context.close();
    }
  });

  it("mounts rows met in a fast scroll as sketches, plain ones laid out as rendered, with their toolbars to come, completed once the page is still without moving the row at the top or changing a plain sketch's height (LC5, LC7, LC10)", async () => {
    const { stack } = shared;
    // A list under each message: its markdown is taller than its text as written, so completing a row moves what is
    // below it unless the list keeps the rows above the reader in place.
    const listed = (index: number) => `${text(index)}\n\n- first point\n- second point`;
    const id = await longChat(stack, 100, listed);
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    try {
      await pairAndOpen(page, stack, id);
      await article(page, 99).locator("li", { hasText: "second point" }).waitFor();
      // A fling: up a screen a frame; what the rows on screen show at each frame.
      // And each sketch's row's height, by its message (LC10).
      const seen = await scroller(page).evaluate(async (element) => {
        let notRendered = 0;
        let toolbarsToCome = 0;
        let sketches = 0;
        let laidOut = 0;
        let asWritten = 0;
        const sketchHeights: Record<string, number> = {};
        for (let frame = 0; frame < 6; frame++) {
          element.scrollTop = Math.max(0, element.scrollTop - element.clientHeight);
          await new Promise((resolve) => requestAnimationFrame(resolve));
          const waiting = element.querySelectorAll("article[data-sketch], article .markdown-source").length;
          notRendered = Math.max(notRendered, waiting);
          toolbarsToCome = Math.max(toolbarsToCome, element.querySelectorAll("article .message-menu.pending").length);
          sketches = Math.max(sketches, element.querySelectorAll("article[data-sketch]").length);
          laidOut = Math.max(laidOut, element.querySelectorAll('article[data-sketch="laid-out"]').length);
          asWritten = Math.max(asWritten, element.querySelectorAll("article .markdown-source").length);
          for (const sketch of Array.from(element.querySelectorAll("article[data-sketch]")))
            sketchHeights[/long chat message \d+\./.exec(sketch.textContent ?? "")![0]] =
              sketch.parentElement!.getBoundingClientRect().height;
        }
        return { notRendered, toolbarsToCome, sketches, laidOut, asWritten, sketchHeights };
      });
      expect(seen.notRendered).toBeGreaterThan(0);
      expect(seen.toolbarsToCome).toBeGreaterThan(0);
      // LC7: a screen coming in at once mounts as sketches (their text, nothing else).
      expect(seen.sketches).toBeGreaterThan(0);
      // LC10: a plain message's sketch (a paragraph and a list of plain words) is laid out as the renderer lays it out.
      expect(seen.laidOut).toBeGreaterThan(0);
      // And a full row whose markdown waits shows it laid out too, never as written (its list's dashes, taller).
      expect(seen.asWritten).toBe(0);
      if (SHOTS) await shotWhileScrolling(page, `${SHOTS}long-chat-fling-phone.png`);
      // The row at the top of the view (the first whose bottom is below the scroller's top), where it stands now.
      const topRow = () =>
        scroller(page).evaluate((element) => {
          const top = element.getBoundingClientRect().top;
          const row = Array.from(element.querySelectorAll("article")).find(
            (item) => item.getBoundingClientRect().bottom > top + 1,
          )!;
          return {
            text: /long chat message \d+\./.exec(row.textContent ?? "")![0],
            top: row.getBoundingClientRect().top,
          };
        });
      // Read where rows stand only once the frame in flight has laid out and measured what the fling mounted: a row's
      // first measure moves the scroll position a frame later (the virtualizer's compensation), so a read between the
      // two can see a row out of place by that row's growth for one frame (the likely cause of a 29 px failure seen
      // twice at load 15-23; not proven).
      const settled = () =>
        page.evaluate(
          () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))),
        );
      await settled();
      const before = await topRow();
      // Still: every row mounted is completed, its markdown rendered and its toolbar in place.
      const incomplete = () =>
        page.evaluate(
          () =>
            Array.from(document.querySelectorAll("article")).filter(
              (item) =>
                item.matches("[data-sketch]") ||
                item.querySelector(".markdown-source, .message-menu.pending") !== null ||
                item.querySelectorAll("li").length !== 2 ||
                item.querySelector('button[aria-label="Copy message"]') === null,
            ).length,
        );
      await expect.poll(incomplete).toBe(0);
      await settled();
      const after = await page.evaluate(
        (wanted) =>
          Array.from(document.querySelectorAll("article"))
            .find((item) => item.textContent?.includes(wanted))
            ?.getBoundingClientRect().top,
        before.text,
      );
      expect(after).toBeDefined();
      expect(Math.abs(after! - before.top)).toBeLessThan(2);
      // LC10: each sketch still mounted is as tall now, completed, as it was as a sketch: completing it moved nothing.
      const grown = await page.evaluate((heights) => {
        const changes: Record<string, number> = {};
        for (const item of Array.from(document.querySelectorAll("article"))) {
          const name = /long chat message \d+\./.exec(item.textContent ?? "")?.[0];
          const sketched = name === undefined ? undefined : heights[name];
          if (sketched !== undefined)
            changes[name!] = Math.round(item.parentElement!.getBoundingClientRect().height - sketched);
        }
        return changes;
      }, seen.sketchHeights);
      expect(Object.keys(grown).length).toBeGreaterThan(2);
      expect(Object.values(grown).filter((change) => change !== 0)).toEqual([]);
      if (SHOTS) await shotsOfAFling(page, incomplete);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("renders a scroll's rows in a task after the frame while the screen stays within the rows in the page, and at once past them (LC18)", async () => {
    const { stack } = shared;
    const id = await longChat(stack, 100);
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    try {
      await pairAndOpen(page, stack, id);
      await article(page, 99).waitFor();
      // Settled at the end, with the overscan's six rows above the screen mounted after the first paint (LC8): a
      // render that brought them in the frame the test scrolls in would read as the scroll's (seen once, loaded).
      const rowsAboveScreen = () =>
        scroller(page).evaluate((element) => {
          const top = element.getBoundingClientRect().top;
          const rows = Array.from(element.querySelectorAll(".message-row"));
          return rows.filter((row) => row.getBoundingClientRect().bottom <= top).length;
        });
      await expect.poll(rowsAboveScreen).toBe(6);
      // And measured: the list's height no longer changes (a measure landing later changes the rows' places, and a
      // render in the frame is then the rule's, LC18).
      let lastHeight = "";
      const heightSettled = async () => {
        const height = await page.locator(".message-track").evaluate((track) => (track as HTMLElement).style.height);
        const settled = height === lastHeight;
        lastHeight = height;
        return settled;
      };
      await expect.poll(heightSettled, { interval: 100 }).toBe(true);
      // Scrolls to `where` (a function of the rows in the page), then tells which rows were in the page in the frame
      // that scrolled (its animation callbacks, after its scroll event) and once the page has rendered again, and
      // whether the rows in that frame covered the screen.
      const scrollAndWatch = (where: "within" | "past") =>
        scroller(page).evaluate(async (element, where) => {
          const indices = () =>
            Array.from(element.querySelectorAll<HTMLElement>(".message-row")).map((row) => Number(row.dataset.index));
          const box = element.getBoundingClientRect();
          const rows = Array.from(element.querySelectorAll(".message-row")).map((row) => row.getBoundingClientRect());
          const firstInList = Math.min(...rows.map((row) => row.top)) - box.top + element.scrollTop;
          const before = indices();
          // Within: the screen's top moved onto the highest row in the page (the overscan above), a few pixels into
          // it. Past: the chat's top.
          element.scrollTop = where === "within" ? firstInList + 8 : 0;
          const inFrame = await new Promise<{ rows: number[]; covered: boolean }>((resolve) =>
            requestAnimationFrame(() => {
              const shown = Array.from(element.querySelectorAll(".message-row")).map((row) =>
                row.getBoundingClientRect(),
              );
              const covered =
                shown.length > 0 &&
                Math.min(...shown.map((row) => row.top)) <= box.top + 1 &&
                Math.max(...shown.map((row) => row.bottom)) >= box.bottom - 1;
              resolve({ rows: indices(), covered });
            }),
          );
          // One task after that frame (a message's: no timer), well before the library's scroll end (150 ms), which
          // would render them anyway.
          await new Promise((resolve) => {
            const channel = new MessageChannel();
            channel.port1.onmessage = resolve;
            channel.port2.postMessage(null);
          });
          return { before, inFrame, after: indices() };
        }, where);
      const within = await scrollAndWatch("within");
      // The frame that scrolled showed the rows that were there; the rows the scroll brings came after it.
      expect(within.inFrame.covered).toBe(true);
      expect(within.inFrame.rows).toEqual(within.before);
      expect(within.after).not.toEqual(within.before);
      expect(Math.min(...within.after)).toBeLessThan(Math.min(...within.before));
      const past = await scrollAndWatch("past");
      // Past the rows in the page: the frame that scrolled shows the rows of its screen, the chat's first ones.
      expect(past.inFrame.covered).toBe(true);
      expect(past.inFrame.rows).toContain(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it.each([
    ["a phone", PHONE, ["Attach a file", "Chat options"]],
    ["a desktop", DESKTOP, ["Attach a file", "Attach an image link"]],
  ] as const)(
    "on %s, builds the composer's controls after the chat's rows are in the page, where the transcript kept them room (LC13)",
    async (_label, viewport, controls) => {
      const { stack } = shared;
      const id = await longChat(stack, 40);
      const { context, page, errors } = await openPage(shared.browser, viewport);
      try {
        await pairThroughLink(page, (await stack.createPairing()).pair_url);
        await noteArrivals(page, ".composer", controls);
        await page.goto(`${stack.serverUrl}/#/s/${id}`);
        await article(page, 39).waitFor();
        for (const name of controls) await page.getByRole("button", { name, exact: true }).waitFor();
        if (viewport === DESKTOP) await page.getByRole("combobox", { name: "Model" }).waitFor();
        await expectArrivedAfterRows(page, controls);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );

  it.each([
    ["a phone", PHONE],
    ["a desktop", DESKTOP],
  ] as const)(
    "on %s, builds the header's chat controls after the chat's rows are in the page, in a row kept their height (LC16)",
    async (_label, viewport) => {
      const { stack } = shared;
      const id = await longChat(stack, 40);
      const { context, page, errors } = await openPage(shared.browser, viewport);
      const controls = ["Rename chat", "Fork chat", "Pin chat", "Archive chat", "Export chat", "Delete chat"];
      try {
        await pairThroughLink(page, (await stack.createPairing()).pair_url);
        await noteArrivals(page, ".chat-header", controls);
        await page.goto(`${stack.serverUrl}/#/s/${id}`);
        await article(page, 39).waitFor();
        for (const name of controls) await page.getByRole("button", { name, exact: true }).waitFor();
        await expectArrivedAfterRows(page, controls);
        // Once shown, each keeps its accessible name: the row is the chat's controls, not a place for them.
        expect(await page.locator(".chat-header .header-actions[aria-hidden='true']").count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});

/**
 * From now on, notes in the page, in the order the page put them in, the chat's first row and each button named in
 * `names` inside `scope` (not one the pairing left on the screen, marked), with the rows, those buttons and the
 * transcript's height at that moment.
 */
async function noteArrivals(page: Page, scope: string, names: readonly string[]): Promise<void> {
  await page.evaluate(
    ({ scope, names }) => {
      document.querySelectorAll(scope).forEach((element) => element.setAttribute("data-before", ""));
      const present = (name: string) =>
        document.querySelector(`${scope}:not([data-before]) button[aria-label="${name}"]`) !== null;
      const seen: Arrival[] = [];
      (window as unknown as { seen: Arrival[] }).seen = seen;
      const note = (what: string) => {
        if (seen.some((entry) => entry.what === what)) return;
        const log = document.querySelector('[role="log"][aria-label="Messages"]');
        const rows = document.querySelectorAll("article").length;
        const controls = names.filter(present).length;
        seen.push({ what, rows, controls, transcript: log?.getBoundingClientRect().height ?? 0 });
      };
      new MutationObserver(() => {
        if (document.querySelector("article")) note("rows");
        for (const name of names) if (present(name)) note(name);
      }).observe(document.body, { childList: true, subtree: true });
    },
    { scope, names },
  );
}

type Arrival = { what: string; rows: number; controls: number; transcript: number };

/**
 * The rows came first, then every control named, each with the rows already in the page; and the transcript is as
 * tall now as when each came (under 2 px, as LC2 and LC5 read a move): the controls took the room kept for them.
 */
async function expectArrivedAfterRows(page: Page, names: readonly string[]): Promise<void> {
  const seen = await page.evaluate(() => (window as unknown as { seen: Arrival[] }).seen);
  expect(seen.map((entry) => entry.what)).toEqual(["rows", ...names]);
  expect(seen[0]!.controls).toBe(0);
  expect(seen.every((entry) => entry.rows > 0)).toBe(true);
  const now = await scroller(page).evaluate((element) => element.getBoundingClientRect().height);
  expect(seen.filter((entry) => Math.abs(entry.transcript - now) >= 2)).toEqual([]);
}
