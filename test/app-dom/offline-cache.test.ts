// The offline cache's bounds (docs/app.md "Offline", OF1 and OF2): every chat opened in the last 30 days is kept,
// pinned chats past that too, a chat's last MAX_MESSAGES only, and over the byte bound the chat opened longest ago
// goes first (pinned ones last). Two writes at once lose neither chat. Over the in-memory cache, whose rules are the
// IndexedDB one's (the same code over another key-value store); test/app/offline-history.test.ts covers IndexedDB.
import { describe, expect, it } from "vitest";
import type { Message, Session, SessionSummary } from "../../client/index.ts";
import { cacheOver, KEEP_OPENED_MS, memoryCache, type KeyValue } from "../../app/src/state/offline-cache.ts";
import { byPinThenActivity, HEAD_CHATS } from "../../app/src/state/list-order.ts";
import { ABANDONED_AFTER_MS, listRecords, RECORD_CHATS } from "../../app/src/state/list-records.ts";
import { NEXT_PAGE, walkSessionPages } from "../../app/src/state/session-pages.ts";
import { createSessions } from "../../app/src/state/sessions.ts";
import type { AppEnv } from "../../app/src/state/env.ts";

const DAY = 24 * 60 * 60 * 1000;
const said = (text: string): Message[] => [{ role: "user", content: text }];
const summary = (id: string, pinned: boolean): SessionSummary => ({
  id,
  title: id,
  agent_id: "default",
  model: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  message_count: 1,
  pinned,
});

describe("the offline cache's bounds", () => {
  it("keeps every chat opened in the last 30 days, however many (OF1)", async () => {
    let now = 0;
    const cache = memoryCache({ now: () => now });
    for (let index = 0; index < 40; index++) {
      now = index * 60_000;
      await cache.writeMessages(`s${index}`, said(`chat ${index}`));
    }
    expect(await cache.keptSessions()).toHaveLength(40);
    expect(await cache.readMessages("s0")).toEqual(said("chat 0"));
  });

  it("lets a chat not opened for 30 days go, unless it is pinned (OF1)", async () => {
    let now = 0;
    const cache = memoryCache({ now: () => now });
    await cache.writeSessions([summary("old", false), summary("pinned", true)]);
    await cache.writeMessages("old", said("old"));
    await cache.writeMessages("pinned", said("pinned"));
    now = KEEP_OPENED_MS + DAY;
    await cache.writeMessages("new", said("new"));
    expect(await cache.readMessages("old")).toBeUndefined();
    expect(await cache.readMessages("pinned")).toEqual(said("pinned"));
    expect(await cache.keptSessions()).toEqual(["new", "pinned"]);
  });

  it("over the byte bound, drops the chat opened longest ago first, pinned ones last (OF2)", async () => {
    let now = 0;
    const big = said("x".repeat(1000));
    const cache = memoryCache({ now: () => now, maxBytes: 3500 });
    await cache.writeSessions([summary("a", true)]);
    for (const id of ["a", "b", "c", "d"]) {
      now += 1;
      await cache.writeMessages(id, big);
    }
    // Four of ~1,040 bytes over 3,500: the oldest unpinned (b) goes, pinned a stays.
    expect(await cache.keptSessions()).toEqual(["d", "c", "a"]);
    expect(await cache.readMessages("b")).toBeUndefined();
  });

  it("keeps the pinned chats when a chat is written without reading the whole list (OF10)", async () => {
    const { store, reads } = countedStore();
    let now = 0;
    const cache = cacheOver(store, { now: () => now, keepOpenedMs: DAY });
    const list = Array.from({ length: 1000 }, (_, index) => summary(`c${index}`, index % 500 === 1));
    await cache.writeSessions(list);
    await cache.writeMessages("c1", said("pinned"));
    await cache.writeMessages("c2", said("not pinned"));
    now = 2 * DAY;
    await cache.writeMessages("c3", said("new"));
    // The pinned chat outlives the age limit; the other goes; and no write read the list of 1,000 chats.
    expect(await cache.keptSessions()).toEqual(["c3", "c1"]);
    expect(reads.get("sessions") ?? 0).toBe(0);
  });

  it("still keeps the pinned chats of a list cached without their ids beside it (OF10)", async () => {
    const { store } = countedStore();
    let now = 0;
    const cache = cacheOver(store, { now: () => now, keepOpenedMs: DAY });
    // As a build before OF10 left it: the list alone.
    await store.set("sessions", [summary("pinned", true), summary("plain", false)]);
    await cache.writeMessages("pinned", said("pinned"));
    await cache.writeMessages("plain", said("plain"));
    now = 2 * DAY;
    await cache.writeMessages("new", said("new"));
    expect(await cache.keptSessions()).toEqual(["new", "pinned"]);
  });

  it("keeps a chat's last messages only (OF2)", async () => {
    const cache = memoryCache({ maxMessages: 3 });
    const many = Array.from({ length: 10 }, (_, index) => said(`m${index}`)[0]!);
    await cache.writeMessages("s", many);
    expect((await cache.readMessages("s"))?.map((message) => message.content)).toEqual(["m7", "m8", "m9"]);
  });

  it("loses no chat when two are written at once (OF1)", async () => {
    const cache = memoryCache();
    await Promise.all(Array.from({ length: 20 }, (_, index) => cache.writeMessages(`s${index}`, said(`${index}`))));
    expect(await cache.keptSessions()).toHaveLength(20);
  });
});

describe("the cached list's head (docs/app.md HS5)", () => {
  const at = (id: string, updated_at: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({
    ...summary(id, false),
    updated_at,
    ...extra,
  });

  it("keeps the first HEAD_CHATS chats in the list's order, archived ones left out, and forgets a deleted chat there too", async () => {
    const cache = memoryCache();
    const list = Array.from({ length: HEAD_CHATS + 20 }, (_, index) =>
      at(`c${index}`, new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString()),
    );
    list.push(at("pinned-old", "2025-01-01T00:00:00.000Z", { pinned: true }));
    list.push(at("archived-new", "2027-01-01T00:00:00.000Z", { archived: true }));
    await cache.writeSessions(list);
    const head = (await cache.readSessionsHead())!.map((chat) => chat.id);
    expect(head).toHaveLength(HEAD_CHATS);
    // Pinned first, then the newest activity; the archived chat, however new, is not on the first screen.
    expect(head.slice(0, 3)).toEqual(["pinned-old", `c${HEAD_CHATS + 19}`, `c${HEAD_CHATS + 18}`]);
    expect(head).not.toContain("archived-new");
    await cache.forgetSession(`c${HEAD_CHATS + 19}`);
    expect((await cache.readSessionsHead())!.map((chat) => chat.id).slice(0, 2)).toEqual([
      "pinned-old",
      `c${HEAD_CHATS + 18}`,
    ]);
    expect((await cache.readSessions())!).toHaveLength(list.length - 1);
  });

  it("orders by the ISO times' code units, so the same instant written alike sorts as equal (HS5)", () => {
    const a = at("a", "2026-11-29T05:00:00.000Z");
    const b = at("b", "2026-11-29T05:00:00.001Z");
    expect([a, b].sort(byPinThenActivity).map((chat) => chat.id)).toEqual(["b", "a"]);
    expect(byPinThenActivity(a, { ...a, id: "same" })).toBe(0);
  });
});

describe("the cached list in records (docs/app.md OF11)", () => {
  const list = (length: number, from = 0) => Array.from({ length }, (_, index) => summary(`c${from + index}`, false));
  /** `count` chats in the list's order, each a minute older than the one before it. */
  function datedList(count: number) {
    return list(count).map((chat, index) => ({
      ...chat,
      updated_at: new Date(Date.UTC(2026, 0, 10) - index * 60_000).toISOString(),
    }));
  }

  /** A start in a new page over `store`: its cache, and its chat list reading from it. */
  function nextStart(store: KeyValue) {
    const offline = cacheOver(store);
    return { offline, sessions: createSessions({ offline, report: () => undefined } as unknown as AppEnv) };
  }

  /** `chats` cached, then the next start over them in a new page, the whole cached list shown. */
  async function restoredOver(store: KeyValue, chats: SessionSummary[]) {
    await cacheOver(store).writeSessions(chats);
    const start = nextStart(store);
    await start.sessions.restore();
    expect(await start.sessions.restoredWhole()).toBe(true);
    return start;
  }

  /** The server's list `served` in pages of NEXT_PAGE along its cursor (the next page's index). */
  function pagedServer(served: SessionSummary[]) {
    const pages = Array.from({ length: Math.ceil(served.length / NEXT_PAGE) }, (_, page) =>
      served.slice(page * NEXT_PAGE, (page + 1) * NEXT_PAGE),
    );
    return {
      listSessionsPage: async ({ before }: { limit: number; before?: string }) => {
        const at = before === undefined ? 0 : Number(before);
        return { sessions: pages[at]!, next_before: at + 1 < pages.length ? String(at + 1) : null };
      },
    };
  }

  const recordKeys = (values: Map<string, unknown>) =>
    [...values.keys()].filter((key) => key.startsWith("sessions_record:")).sort();

  it("keeps 10,000 chats in records of at most RECORD_CHATS, read one record a task and checked each", async () => {
    const { store, values } = countedStore();
    const chats = list(10_000);
    await cacheOver(store).writeSessions(chats);
    const keys = recordKeys(values);
    expect(keys).toHaveLength(10_000 / RECORD_CHATS);
    for (const key of keys) expect((values.get(key) as unknown[]).length).toBeLessThanOrEqual(RECORD_CHATS);
    // Every record's read comes after a pause (the next task) of its own: no task reads two.
    const steps: string[] = [];
    const logged: KeyValue = { ...store, get: (key) => (steps.push(key), store.get(key)) };
    const records = listRecords(logged, async () => void steps.push("pause"));
    expect((await records.read())?.map((chat) => chat.id)).toEqual(chats.map((chat) => chat.id));
    const reads = steps.filter((step) => step.startsWith("sessions_record:"));
    expect(reads).toHaveLength(keys.length);
    for (const read of reads) expect(steps[steps.indexOf(read) - 1]).toBe("pause");
  });

  it("rewrites only the record a change touches, and puts a new chat in the last one", async () => {
    const { store, values, writes } = countedStore();
    const cache = cacheOver(store);
    const chats = list(4 * RECORD_CHATS);
    await cache.writeSessions(chats);
    writes.clear();
    const renamed = { ...chats[RECORD_CHATS + 7]!, title: "Renamed" };
    await cache.writeSessions([...chats.filter((chat) => chat.id !== renamed.id), renamed]);
    expect([...writes.keys()].filter((key) => key.startsWith("sessions_record:"))).toHaveLength(1);
    expect(recordKeys(values)).toHaveLength(4);
    writes.clear();
    const again = (await cache.readSessions())!.map((chat) => (chat.id === "c3" ? { ...chat, title: "Again" } : chat));
    await cache.writeSessions(again);
    await cache.writeSessions(again.map((chat) => (chat.id === "c1999" ? { ...chat, title: "Last" } : chat)));
    expect([...writes.keys()].filter((key) => key.startsWith("sessions_record:"))).toHaveLength(2);
    writes.clear();
    // As a start does: the list read (its chats are the objects the records held), then a chat added.
    const read = (await cache.readSessions())!;
    expect(read.find((chat) => chat.id === renamed.id)?.title).toBe("Renamed");
    await cache.writeSessions([...read, summary("new", false)]);
    expect([...writes.keys()].filter((key) => key.startsWith("sessions_record:"))).toHaveLength(1);
    expect((await cache.readSessions())?.at(-1)?.id).toBe("new");
  });

  it("writes back, after a start read the whole list, only the record of the chat an event changed", async () => {
    const { store, writes } = countedStore();
    const chats = datedList(4 * RECORD_CHATS);
    // The next start, in a new page: the head shown first, then the whole list under it.
    const { offline, sessions } = await restoredOver(store, chats);
    expect(sessions.list.value).toHaveLength(chats.length);
    writes.clear();
    const changed = chats[3 * RECORD_CHATS + 1]!;
    const session = { ...changed, title: "Renamed", updated_at: "2026-02-01T00:00:00.000Z", messages: [] };
    sessions.upsert(session as unknown as Session);
    await offline.readSessions(); // queued after the write
    // The head's chats shown before the list came are the list's own (a tie): their record is not written again.
    expect([...writes.keys()].filter((key) => key.startsWith("sessions_record:"))).toHaveLength(1);
    expect((await cacheOver(store).readSessions())?.find((chat) => chat.id === changed.id)?.title).toBe("Renamed");
  });

  it("OF12 writes back, after a walk of the server's pages that found one chat changed, only that chat's record", async () => {
    const { store, writes } = countedStore();
    const chats = datedList(4 * RECORD_CHATS);
    // The next start, in a new page: the whole cached list shown, then the server's list walked in pages.
    const { offline, sessions } = await restoredOver(store, chats);
    writes.clear();
    const changed = chats[3 * RECORD_CHATS + 1]!;
    // The server's copies are its own objects (read from its answers): equal to the cached ones but one.
    const served = chats.map((chat) =>
      chat.id === changed.id ? { ...chat, title: "Renamed", updated_at: "2026-02-01T00:00:00.000Z" } : { ...chat },
    );
    const walked = await walkSessionPages(pagedServer(served), sessions);
    expect(walked).toHaveLength(chats.length);
    await offline.readSessions(); // queued after the walk's write
    // The chats the walk brought unchanged are the cached objects still: only the renamed one's record is written.
    expect([...writes.keys()].filter((key) => key.startsWith("sessions_record:"))).toHaveLength(1);
    const cached = await cacheOver(store).readSessions();
    expect(cached?.find((chat) => chat.id === changed.id)?.title).toBe("Renamed");
    expect(cached?.map((chat) => chat.id).sort()).toEqual(chats.map((chat) => chat.id).sort());
  });

  it("OF14 writes nothing at a walk over an unchanged server after an event brought a chat, its options kept", async () => {
    const { store, writes } = countedStore();
    const chats = datedList(4 * RECORD_CHATS);
    const { offline, sessions } = await restoredOver(store, chats);
    // A chat opened (or an event's): the whole session, whose summary carries the chat's request options.
    const touched = { ...chats[3 * RECORD_CHATS + 1]!, archived: false, updated_at: "2026-02-01T00:00:00.000Z" };
    const session = { ...touched, messages: said("its one message"), request_options: { effort: "high" } };
    sessions.upsert(session as unknown as Session);
    // Queued after the upsert's write, and reads no record (a read would hold its chats as new objects).
    await offline.forgetCursor();
    // The server's list, unchanged since, in its order (the touched chat first): summaries without request options.
    const served = [{ ...touched }, ...chats.filter((chat) => chat.id !== touched.id).map((chat) => ({ ...chat }))];
    for (const walk of [1, 2]) {
      writes.clear();
      await walkSessionPages(pagedServer(served), sessions);
      await offline.forgetCursor(); // queued after the walk's write
      expect({ walk, records: [...writes.keys()].filter((key) => key.startsWith("sessions_record:")) }).toEqual({
        walk,
        records: [],
      });
      expect(sessions.list.value.find((chat) => chat.id === touched.id)?.request_options).toEqual({ effort: "high" });
    }
  });

  it("OF13 keeps the cached list whole when the server's first page came before it was read, until the walk's end", async () => {
    const { store } = countedStore();
    const chats = datedList(4 * RECORD_CHATS);
    await cacheOver(store).writeSessions(chats);
    const { offline, sessions } = nextStart(store);
    const restoring = sessions.restore();
    // The walk's first page comes while the cached list is read, then a chat is opened (its summary written back).
    sessions.mergePage(chats.slice(0, 50).map((chat) => ({ ...chat })));
    await restoring;
    const opened = { ...chats[7]!, title: "Opened", updated_at: "2026-02-01T00:00:00.000Z", messages: [] };
    sessions.upsert(opened as unknown as Session);
    expect(await sessions.restoredWhole()).toBe(true);
    sessions.upsert({ ...opened, title: "Opened again" } as unknown as Session);
    await offline.readSessions(); // queued after any write
    // The list shown is the walk's first page: written, it replaced the 2,000 cached chats with 50.
    expect(await cacheOver(store).readSessions()).toHaveLength(chats.length);
    // The walk's end writes the server's whole list.
    sessions.replace([...chats.slice(0, 7), { ...chats[7]!, title: "Opened again" }, ...chats.slice(8, 100)]);
    await offline.readSessions();
    const cached = await cacheOver(store).readSessions();
    expect(cached).toHaveLength(100);
    expect(cached?.[7]?.title).toBe("Opened again");
  });

  it("OF13 holds no write back when there was no cached list to keep whole", async () => {
    const { store } = countedStore();
    const { offline, sessions } = nextStart(store);
    const restoring = sessions.restore();
    // A first start: nothing cached, the walk's first page comes while the (empty) cache is read.
    const page = list(50);
    sessions.mergePage(page.map((chat) => ({ ...chat })));
    await restoring;
    expect(await sessions.restoredWhole()).toBe(false);
    sessions.upsert({ ...page[3]!, title: "Opened", messages: [] } as unknown as Session);
    await offline.readSessions(); // queued after any write
    // The pages walked so far are all the device has: kept at once, the opened chat with them.
    const cached = await cacheOver(store).readSessions();
    expect(cached).toHaveLength(50);
    expect(cached?.find((chat) => chat.id === page[3]!.id)?.title).toBe("Opened");
  });

  it("reads the older list whole when a write stops between its records (a crash before the manifest)", async () => {
    const { store } = countedStore();
    const before = list(3 * RECORD_CHATS);
    await cacheOver(store).writeSessions(before);
    const crashing = closedAfter(store, 1);
    const changed = [...before.slice(RECORD_CHATS), ...list(2 * RECORD_CHATS, 10_000)];
    await expect(cacheOver(crashing).writeSessions(changed)).rejects.toThrow("the page closed");
    expect((await cacheOver(store).readSessions())?.map((chat) => chat.id)).toEqual(before.map((chat) => chat.id));
  });

  it("removes, at a later write, the records a stopped write left unnamed once they are a minute old, not sooner", async () => {
    const { store, values } = countedStore();
    let now = Date.UTC(2026, 0, 10);
    const cache = cacheOver(store, { now: () => now });
    await cache.writeSessions(list(3 * RECORD_CHATS));
    const crashing = closedAfter(store, 2);
    await expect(cacheOver(crashing, { now: () => now }).writeSessions(list(3 * RECORD_CHATS, 10_000))).rejects.toThrow(
      "the page closed",
    );
    const named = recordKeys(values);
    expect(named).toHaveLength(5); // three named, two left by the stopped write
    // A write within the minute keeps them: they could be another tab's write under way.
    now += ABANDONED_AFTER_MS / 2;
    const read = (await cacheOver(store, { now: () => now }).readSessions())!;
    const renamed = read.map((chat) => (chat.id === "c3" ? { ...chat, title: "Renamed" } : chat));
    await cacheOver(store, { now: () => now }).writeSessions(renamed);
    expect(recordKeys(values)).toHaveLength(5);
    now += ABANDONED_AFTER_MS;
    await cacheOver(store, { now: () => now }).writeSessions(renamed.map((chat) => ({ ...chat, title: "Again" })));
    expect(recordKeys(values)).toHaveLength(3);
    expect((await cacheOver(store).readSessions())?.map((chat) => chat.title)).toEqual(renamed.map(() => "Again"));
  });

  it("drops the whole cached list when one record fails its check, or is missing", async () => {
    const { store, values } = countedStore();
    await cacheOver(store).writeSessions(list(3 * RECORD_CHATS));
    const [, second] = recordKeys(values);
    await store.set(second!, [{ id: 42 }]);
    await expect(cacheOver(store).readSessions()).resolves.toBeUndefined();
    await store.remove(second!);
    await expect(cacheOver(store).readSessions()).resolves.toBeUndefined();
    await store.set("sessions_records", { write: "x", records: "not a list" });
    await expect(cacheOver(store).readSessions()).resolves.toBeUndefined();
  });

  it("reads a list an older build kept in one record, once: the next write keeps it in records and removes it", async () => {
    const { store, values } = countedStore();
    const older = list(1200);
    await store.set("sessions", older);
    const cache = cacheOver(store);
    const read = (await cache.readSessions())!;
    expect(read.map((chat) => chat.id)).toEqual(older.map((chat) => chat.id));
    await cache.writeSessions(read);
    expect(values.has("sessions")).toBe(false);
    expect(recordKeys(values)).toHaveLength(3);
    expect((await cacheOver(store).readSessions())?.map((chat) => chat.id)).toEqual(older.map((chat) => chat.id));
  });

  it("leaves no record behind a deleted chat's write, nor after a wipe", async () => {
    const { store, values } = countedStore();
    const cache = cacheOver(store);
    await cache.writeSessions(list(2 * RECORD_CHATS));
    await cache.writeSessions(list(2 * RECORD_CHATS, 5000));
    expect(recordKeys(values)).toHaveLength(2);
    await cache.forgetSession("c5000");
    expect(recordKeys(values)).toHaveLength(2);
    expect(await cache.readSessions()).toHaveLength(2 * RECORD_CHATS - 1);
    await cache.wipe();
    expect([...values.keys()]).toEqual([]);
    await expect(cache.readSessions()).resolves.toBeUndefined();
  });
});

/** `store` as a page closed after `writes` more writes: each write after those fails. */
function closedAfter(store: KeyValue, writes: number): KeyValue {
  let allowed = writes;
  return {
    ...store,
    set: async (key, value) => {
      if (allowed-- <= 0) throw new Error("the page closed");
      return store.set(key, value);
    },
  };
}

/** An in-memory store that counts its reads and writes by key. */
function countedStore(): {
  store: KeyValue;
  values: Map<string, unknown>;
  reads: Map<string, number>;
  writes: Map<string, number>;
} {
  const values = new Map<string, unknown>();
  const reads = new Map<string, number>();
  const writes = new Map<string, number>();
  const store: KeyValue = {
    get: async (key) => (reads.set(key, (reads.get(key) ?? 0) + 1), structuredClone(values.get(key))),
    set: async (key, value) => (
      writes.set(key, (writes.get(key) ?? 0) + 1),
      void values.set(key, structuredClone(value))
    ),
    remove: async (key) => void values.delete(key),
    keys: async (prefix) => [...values.keys()].filter((key) => key.startsWith(prefix)),
    clear: async () => values.clear(),
  };
  return { store, values, reads, writes };
}
