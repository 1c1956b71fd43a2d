import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatEventId } from "../../client/wire/index.ts";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { Transactor } from "../../server/db/transactor.ts";
import { CursorExpiredError, EventStore, type RetentionPolicy } from "../../server/events/event-store.ts";
import { tempDir } from "../support/server.ts";

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(dir = tempDir(), retention?: RetentionPolicy, now?: () => number) {
  if (!dirs.includes(dir)) dirs.push(dir);
  const db = openDatabase(join(dir, "server.sqlite"));
  dbs.push(db);
  const transactor = new Transactor(db);
  return { dir, db, transactor, store: new EventStore(db, transactor, retention, now) };
}

describe("EventStore", () => {
  it("assigns fixed-width ascending ids and lists by since_id, session and request with a limit", () => {
    const { store } = open();
    const a = store.publish({ type: "checkpoint", session_id: "s1" });
    const b = store.publish({ type: "request_started", session_id: "s2", request_id: "r1", stream: true });
    const c = store.publish({ type: "request_completed", session_id: "s1", request_id: "r2" });
    expect([a.event_id, b.event_id, c.event_id]).toEqual([formatEventId(1), formatEventId(2), formatEventId(3)]);
    expect(store.list({ sinceId: 0, limit: 10 }).events.map((e) => e.type)).toEqual([
      "checkpoint",
      "request_started",
      "request_completed",
    ]);
    expect(store.list({ sinceId: 1, limit: 10 }).events.map((e) => e.event_id)).toEqual([b.event_id, c.event_id]);
    expect(store.list({ sinceId: 0, sessionId: "s1", limit: 10 }).events.map((e) => e.event_id)).toEqual([
      a.event_id,
      c.event_id,
    ]);
    expect(store.list({ sinceId: 0, requestId: "r1", limit: 10 }).events.map((e) => e.event_id)).toEqual([b.event_id]);
    expect(
      store.list({ sinceId: 0, sessionId: "s1", requestId: "r2", limit: 10 }).events.map((e) => e.event_id),
    ).toEqual([c.event_id]);
    const page = store.list({ sinceId: 0, limit: 2 });
    expect(page.events).toHaveLength(2);
    expect(page.lastId).toBe(2);
    expect(store.list({ sinceId: 0, limit: 10 }).events[1]).toMatchObject({
      stream: true,
      timestamp: expect.any(String),
    });
  });

  it("makes an event visible and wakes waiters only when its transaction commits", async () => {
    const { store, transactor } = open();
    const woken: number[] = [];
    store.commits.subscribe((id) => woken.push(id));
    expect(() =>
      transactor.run(() => {
        store.publish({ type: "checkpoint", session_id: "s" });
        throw new Error("mutation failed");
      }),
    ).toThrow("mutation failed");
    expect(store.list({ sinceId: 0, limit: 10 }).events).toEqual([]);
    expect(woken).toEqual([]);
    const waiting = store.waitBeyond(store.latestId, 5_000);
    transactor.run(() => {
      store.publish({ type: "checkpoint", session_id: "s" });
      expect(woken).toEqual([]); // still inside the transaction
    });
    expect(await waiting).toBe(true);
    expect(woken).toHaveLength(1);
  });

  it("refuses to store the internal session_checkpoint", () => {
    const { store } = open();
    expect(() => store.publish({ type: "session_checkpoint", session_id: "s" })).toThrow(/internal/);
    expect(store.list({ sinceId: 0, limit: 10 }).events).toEqual([]);
  });

  it("keeps events, their order, the epoch and the id sequence across a restart", () => {
    const first = open();
    for (let i = 0; i < 5; i++) first.store.publish({ type: "checkpoint", session_id: `s${i}` });
    const epoch = first.store.epoch;
    first.transactor.commitGroup();
    first.db.close();
    const second = open(first.dir);
    expect(second.store.epoch).toBe(epoch);
    expect(second.store.list({ sinceId: 0, limit: 10 }).events.map((e) => e.session_id)).toEqual([
      "s0",
      "s1",
      "s2",
      "s3",
      "s4",
    ]);
    expect(second.store.publish({ type: "checkpoint", session_id: "s5" }).event_id).toBe(formatEventId(6));
    expect(open().store.epoch).not.toBe(epoch); // a new store is a new epoch
  });

  it("prunes beyond the retention bound and expires cursors that fell behind it, never the newer ones", () => {
    const { store } = open(undefined, { maxEvents: 3 });
    for (let i = 0; i < 10; i++) store.publish({ type: "checkpoint", session_id: "s" });
    expect(store.prune()).toBe(7);
    expect(store.list({ sinceId: 7, limit: 10 }).events.map((e) => e.event_id)).toEqual([8, 9, 10].map(formatEventId));
    expect(() => store.list({ sinceId: 6, limit: 10 })).toThrow(CursorExpiredError);
    expect(() => store.list({ sinceId: 0, limit: 10 })).toThrow(CursorExpiredError);
  });

  it("prunes by age with the injected clock", () => {
    let now = 1_000_000;
    const { store } = open(undefined, { maxEvents: 100, maxAgeSeconds: 60 }, () => now);
    store.publish({ type: "checkpoint", session_id: "old" });
    now += 61_000;
    store.publish({ type: "checkpoint", session_id: "new" });
    expect(store.prune()).toBe(1);
    expect(store.list({ sinceId: 1, limit: 10 }).events.map((e) => e.session_id)).toEqual(["new"]);
  });

  it("ids never repeat after the newest events are pruned and the store reopens", () => {
    const first = open(undefined, { maxEvents: 1 });
    for (let i = 0; i < 4; i++) first.store.publish({ type: "checkpoint", session_id: "s" });
    first.store.prune();
    first.transactor.commitGroup();
    first.db.close();
    const second = open(first.dir, { maxEvents: 1 });
    expect(second.store.oldestValidCursor).toBe(3);
    expect(second.store.publish({ type: "checkpoint", session_id: "s" }).event_id).toBe(formatEventId(5));
  });
});

describe("group commit of standalone publishes", () => {
  it("commits a burst once at the end of the microtask, waking waiters only then", async () => {
    const { store, db } = open();
    const woken: number[] = [];
    store.commits.subscribe((id) => woken.push(id));
    for (let i = 0; i < 3; i++)
      store.publish({
        type: "partial",
        session_id: "s",
        request_id: "r",
        message: { role: "assistant", content: String(i) },
      });
    expect(db.inTransaction).toBe(true);
    expect(woken).toEqual([]);
    await Promise.resolve();
    expect(db.inTransaction).toBe(false);
    expect(woken).toEqual([3]);
    expect(store.list({ sinceId: 0, limit: 10 }).events).toHaveLength(3);
  });

  it("commits an open group before an explicit transaction, keeping id order", () => {
    const { store, transactor } = open();
    store.publish({ type: "checkpoint", session_id: "first" });
    transactor.run(() => store.publish({ type: "checkpoint", session_id: "second" }));
    expect(store.list({ sinceId: 0, limit: 10 }).events.map((e) => e.session_id)).toEqual(["first", "second"]);
  });
});
