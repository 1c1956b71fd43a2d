// @vitest-environment happy-dom
// The chat list in pages (docs/app.md "History at scale", HS1-HS3): the cached list shows before any round trip, the
// first page over it as soon as it comes, the rest along the server's cursor; at the end the list is the server's,
// with the changes events brought during the walk kept.
import { act, screen, waitFor } from "@testing-library/preact";
import { h, render } from "preact";
import { useState } from "preact/hooks";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { ResponseError, type SessionPage } from "../../client/index.ts";
import { SessionList } from "../../app/src/screens/session-list.tsx";
import { FIRST_OVERSCAN, OVERSCAN, SessionRows } from "../../app/src/screens/session-rows.tsx";
import { nextTask } from "../../app/src/state/frames.ts";
import { memoryCache } from "../../app/src/state/offline-cache.ts";
import { WALK_RETRY_DELAYS_MS } from "../../app/src/state/list-walk.ts";
import { FIRST_PAGE, NEXT_PAGE, settledList } from "../../app/src/state/session-pages.ts";
import { CREDENTIALS, fakeClient, testStore } from "./support/fake-env.ts";
import { show, useScreens } from "./support/screen.ts";
import { summary } from "./support/summaries.ts";

useScreens({ sized: true }); // the chat list is virtualized: its rows render in a scroller with a size
afterEach(() => void vi.useRealTimers());

describe("the chat list in pages", () => {
  it("HS1 shows the cached list at once, the first page when it comes, then walks the cursor to the server's list", async () => {
    const offline = memoryCache();
    await offline.writeSessions([
      summary("gone", "Deleted elsewhere", "2026-11-20T10:00:00Z"),
      summary("c1", "Cached title", "2026-11-21T10:00:00Z"),
    ]);
    const asked: Array<{ limit: number; before?: string }> = [];
    let releaseSecond!: () => void;
    const second = new Promise<void>((resolve) => (releaseSecond = resolve));
    const pages: Record<string, SessionPage> = {
      "first": { sessions: [summary("c1", "Fresh title", "2026-11-27T07:00:00Z")], next_before: "cursor-1" },
      "cursor-1": { sessions: [summary("c2", "Second page chat", "2026-11-22T07:00:00Z")], next_before: null },
    };
    const client = fakeClient({
      listSessionsPage: (async (page: { limit: number; before?: string }) => {
        asked.push(page);
        if (page.before) await second;
        return pages[page.before ?? "first"]!;
      }) as never,
    });
    const setup = await testStore({ client, env: { offline } });
    show(setup, () => h(SessionList, { activeId: undefined }));
    // The first page replaced the cached copy of c1; the second page has not answered, so "gone" is still shown.
    expect(await screen.findByText("Fresh title")).toBeTruthy();
    expect(screen.getByText("Deleted elsewhere")).toBeTruthy();
    expect(screen.queryByText("Second page chat")).toBeNull();
    releaseSecond();
    expect(await screen.findByText("Second page chat")).toBeTruthy();
    await waitFor(() => expect(screen.queryByText("Deleted elsewhere")).toBeNull());
    expect(asked).toEqual([{ limit: FIRST_PAGE }, { limit: NEXT_PAGE, before: "cursor-1" }]);
    expect((await offline.readSessions())?.map((s) => s.id).sort()).toEqual(["c1", "c2"]);
  });

  it("SC4 a start that did not resume asks for the list's first page in a task after the one its start resolved in", async () => {
    let resolveStart!: (fromCursor: boolean) => void;
    const started = new Promise<boolean>((resolve) => (resolveStart = resolve));
    const asked: Array<{ limit: number; before?: string }> = [];
    const client = fakeClient({
      resumed: () => started,
      listSessionsPage: (async (page: { limit: number; before?: string }) => {
        asked.push(page);
        return { sessions: [summary("c1", "Walked", "2026-11-27T07:00:00Z")], next_before: null };
      }) as never,
    });
    // Still connecting: the status gives the walk no start of its own (a live client with no list walks at once).
    client.status.set({ state: "connecting" } as never);
    await testStore({ client });
    resolveStart(false);
    // The next task, asked for in the task that resolved the start: it runs before any task its continuations ask for.
    await nextTask();
    expect(asked).toEqual([]);
    await waitFor(() => expect(asked).toEqual([{ limit: FIRST_PAGE }]));
  });

  it("SC5 a start after another pairing walks its own list: the stopped start's walk is neither joined nor applied", async () => {
    let releaseOld!: () => void;
    const old = new Promise<void>((resolve) => (releaseOld = resolve));
    const asked = { old: 0, next: 0 };
    const before = fakeClient({
      listSessionsPage: (async () => {
        asked.old += 1;
        await old;
        return { sessions: [summary("a1", "The old pairing's chat", "2026-11-27T07:00:00Z")], next_before: null };
      }) as never,
    });
    const after = fakeClient({
      listSessionsPage: (async () => {
        asked.next += 1;
        return { sessions: [summary("b1", "The new pairing's chat", "2026-11-27T07:00:00Z")], next_before: null };
      }) as never,
    });
    const clients = [before, after];
    const setup = await testStore({ client: before, env: { connect: (() => clients.shift()!.client) as never } });
    await waitFor(() => expect(asked.old).toBe(1));
    // Revoked while its walk waits for the first page, then paired again.
    await setup.store.connection.forget(true);
    await setup.store.connection.adopt(CREDENTIALS);
    await waitFor(() => expect(asked.next).toBe(1));
    await waitFor(() => expect(setup.store.sessions.list.value.map((chat) => chat.id)).toEqual(["b1"]));
    // The old walk's page comes at last: nothing of it is shown or kept.
    releaseOld();
    await old;
    await nextTask();
    expect(setup.store.sessions.list.value.map((chat) => chat.id)).toEqual(["b1"]);
    expect((await setup.env.offline.readSessions())?.map((chat) => chat.id)).toEqual(["b1"]);
  });

  it("OF15 a walk that failed for another reason than the network is walked again after a pause, its failure reported", async () => {
    const { server, setup } = await startWithSecondPageFailing();
    expect(server.asked).toBe(2);
    server.mend();
    await settle(WALK_RETRY_DELAYS_MS[0]! - 1);
    expect(server.asked).toBe(2);
    await settle(1);
    expect(server.asked).toBe(4);
    expect(setup.store.sessions.list.value.map((chat) => chat.id).sort()).toEqual(["c1", "c2"]);
    // Walked whole: no more walks.
    await settle(WALK_RETRY_DELAYS_MS.at(-1)! * 2);
    expect(server.asked).toBe(4);
  });

  it("OF15 a walk that failed is walked again when the client's status comes back live, once", async () => {
    const { server, setup } = await startWithSecondPageFailing();
    // The first page shown: the list is loaded, and not offline, but not whole.
    expect(setup.store.sessions.loaded.value).toBe(true);
    expect(setup.store.sessions.offline.value).toBe(false);
    server.mend();
    server.fake.status.set({ state: "polling" } as never);
    await settle(0);
    expect(server.asked).toBe(4);
    expect(setup.store.sessions.list.value.map((chat) => chat.id).sort()).toEqual(["c1", "c2"]);
    // The pause's walk is not made as well.
    await settle(WALK_RETRY_DELAYS_MS.at(-1)! * 2);
    expect(server.asked).toBe(4);
  });

  it("HS2 the walk's end keeps a newer copy an event brought and a chat created meanwhile, and drops the rest", () => {
    const seen = [summary("a", "Old a", "2026-11-27T07:00:00Z"), summary("b", "B", "2026-11-26T07:00:00Z")];
    const shown = [
      summary("a", "Renamed a", "2026-11-27T07:00:05Z"),
      summary("new", "Started during the walk", "2026-11-27T07:00:09Z"),
      summary("stale", "Only in the cache", "2026-11-25T07:00:00Z"),
    ];
    const settled = settledList(shown, seen);
    expect(Object.fromEntries(settled.map((s) => [s.id, s.title]))).toEqual({
      a: "Renamed a",
      b: "B",
      new: "Started during the walk",
    });
  });

  it("HS3 ten thousand chats put only the rows near the viewport in the page; scrolling brings the last one", async () => {
    // happy-dom lays nothing out: each row measures as a phone's row does, or every row would measure 0 and render.
    Object.defineProperty(HTMLLIElement.prototype, "offsetHeight", { configurable: true, get: () => 60 });
    onTestFinished(() => void delete (HTMLLIElement.prototype as { offsetHeight?: number }).offsetHeight);
    const setup = await testStore({ client: fakeClient() });
    const many = Array.from({ length: 10_000 }, (_, index) =>
      summary(
        `s${index}`,
        `Chat number ${index}`,
        new Date(Date.UTC(2026, 0, 1) + (10_000 - index) * 60_000).toISOString(),
      ),
    );
    setup.store.sessions.replace(many);
    show(setup, () => h(SessionList, { activeId: undefined }));
    expect(await screen.findByText("Chat number 0")).toBeTruthy();
    expect(screen.getAllByRole("link").length).toBeLessThan(60);
    const scroller = document.querySelector(".session-scroller") as HTMLElement;
    scroller.scrollTop = 60 * 10_000;
    scroller.dispatchEvent(new Event("scroll"));
    expect(await screen.findByText("Chat number 9999")).toBeTruthy();
    expect(screen.queryByText("Chat number 0")).toBeNull();
  });

  it("HS6 a render of the list with the same chats places no row again: their keys are not asked for", async () => {
    const idsRead = { count: 0 };
    const list = chatsCountingIds(10_000, idsRead);
    // happy-dom lays nothing out: each row measures 60 px (a row of 0 px would bring the whole list onto the screen).
    Object.defineProperty(HTMLLIElement.prototype, "offsetHeight", { configurable: true, get: () => 60 });
    onTestFinished(() => void delete (HTMLLIElement.prototype as { offsetHeight?: number }).offsetHeight);
    let renderAgain!: () => void;
    function Parent() {
      const [, setRenders] = useState(0);
      renderAgain = () => setRenders((renders) => renders + 1);
      return h(SessionRows, { list, render: (session) => h("span", {}, session.title) });
    }
    const into = document.body.appendChild(document.createElement("div"));
    onTestFinished(() => (render(null, into), into.remove()));
    render(h(Parent, {}), into);
    await waitFor(() => expect(into.querySelectorAll("li").length).toBeGreaterThan(10));
    await act(async () => undefined);
    const before = idsRead.count;
    for (let renders = 0; renders < 5; renders++) await act(async () => renderAgain());
    // Placing the rows asks every chat for its id: 10,000 reads a render, 50,000 for the five when the key function
    // is a new one at each render.
    expect(idsRead.count - before).toBe(0);
  });

  it("HS6 the chat list rendered again for something else than its chats (the offline notice) places no row again", async () => {
    Object.defineProperty(HTMLLIElement.prototype, "offsetHeight", { configurable: true, get: () => 60 });
    onTestFinished(() => void delete (HTMLLIElement.prototype as { offsetHeight?: number }).offsetHeight);
    const idsRead = { count: 0 };
    const setup = await testStore({ client: fakeClient() });
    setup.store.sessions.replace(chatsCountingIds(10_000, idsRead));
    show(setup, () => h(SessionList, { activeId: undefined }));
    expect(await screen.findByText("Chat 0")).toBeTruthy();
    // The list's write to the device's cache (which reads every id) done, task after task, before counting.
    for (let reads = -1; reads !== idsRead.count;) {
      reads = idsRead.count;
      await act(() => nextTask());
    }
    const before = idsRead.count;
    await act(async () => setup.store.sessions.markOffline());
    expect(await screen.findByText("Offline: showing the chats loaded last time.")).toBeTruthy();
    // The rows on the screen read their chat's id as they render again (a few dozen); placing every row reads 10,000.
    expect(idsRead.count - before).toBeLessThan(1_000);
  });

  it("SU4 the list's first render holds the rows the screen shows, before the scroller is measured", () => {
    const list = Array.from({ length: 100 }, (_, index) =>
      summary(`s${index}`, `Chat ${index}`, "2026-11-20T10:00:00Z"),
    );
    const into = document.body.appendChild(document.createElement("div"));
    onTestFinished(() => (render(null, into), into.remove()));
    // No act(): what the page holds when render() returns, before any re-render the virtualizer's measuring asks for.
    render(h(SessionRows, { list, render: (session) => h("span", {}, session.title) }), into);
    expect(into.querySelectorAll("li").length).toBeGreaterThan(10);
    expect(into.querySelector("li")?.textContent).toBe("Chat 0");
  });

  it("SU11 the list's first render holds one row past the screen; the others past it come after the first paint", async () => {
    const list = Array.from({ length: 100 }, (_, index) =>
      summary(`s${index}`, `Chat ${index}`, "2026-11-20T10:00:00Z"),
    );
    // happy-dom lays nothing out: each row measures 60 px, the scroller 800 px (useScreens' sized boxes).
    Object.defineProperty(HTMLLIElement.prototype, "offsetHeight", { configurable: true, get: () => 60 });
    onTestFinished(() => void delete (HTMLLIElement.prototype as { offsetHeight?: number }).offsetHeight);
    const into = document.body.appendChild(document.createElement("div"));
    onTestFinished(() => (render(null, into), into.remove()));
    render(h(SessionRows, { list, render: (session) => h("span", {}, session.title) }), into);
    const rows = () => into.querySelectorAll("li").length;
    // The screen's rows (the window's height, taken until the scroller is measured) and FIRST_OVERSCAN more.
    expect(rows()).toBe(Math.ceil(window.innerHeight / 60) + FIRST_OVERSCAN);
    // Once the frame is painted (afterPaint, SU14): OVERSCAN rows past the measured scroller.
    await waitFor(() => expect(rows()).toBe(Math.ceil(800 / 60) + OVERSCAN));
  });
});

/** `count` chats, each counting the reads of its id, the key the virtualizer asks for when it places the rows. */
function chatsCountingIds(count: number, idsRead: { count: number }) {
  return Array.from({ length: count }, (_, index) => {
    const chat = summary(`s${index}`, `Chat ${index}`, "2026-11-20T10:00:00Z");
    return Object.defineProperty(chat, "id", { get: () => (idsRead.count++, `s${index}`) });
  });
}

/** Runs the faked timers due within `ms`, and the work they start (the stand-in client answers in microtasks). */
async function settle(ms: number): Promise<void> {
  await act(async () => void (await vi.advanceTimersByTimeAsync(ms)));
}

/** A start (timers faked) whose first walk failed at its second page, the failure reported. */
async function startWithSecondPageFailing() {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const server = secondPageFailing();
  const setup = await testStore({ client: server.fake });
  await settle(0); // the walk's task (SC4)
  expect(setup.reported.map((report) => report.message)).toContain("loading the chat list failed");
  return { server, setup };
}

/** A server whose list has two pages, the second answered with a 500 until `mend()`; `asked` counts the pages asked. */
function secondPageFailing() {
  let failing = true;
  const server = {
    asked: 0,
    mend: () => void (failing = false),
    fake: fakeClient({
      listSessionsPage: (async (page: { limit: number; before?: string }) => {
        server.asked += 1;
        if (page.before === undefined)
          return { sessions: [summary("c1", "First page chat", "2026-11-27T07:00:00Z")], next_before: "cursor-1" };
        if (failing) throw new ResponseError(500, "internal_error", undefined, "the server failed");
        return { sessions: [summary("c2", "Second page chat", "2026-11-22T07:00:00Z")], next_before: null };
      }) as never,
    }),
  };
  return server;
}
