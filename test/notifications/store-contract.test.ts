// One contract suite, run against every application store implementation (SQLite and memory).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { NotificationRecord } from "../../client/wire/notification.ts";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { Transactor } from "../../server/db/transactor.ts";
import { MemoryNotificationStore } from "../../server/notifications/memory-store.ts";
import { SqliteNotificationStore } from "../../server/notifications/sqlite-store.ts";
import type { TransactionalNotificationStore } from "../../server/notifications/store.ts";
import { notificationRecord } from "../support/notification-record.ts";
import { tempDir } from "../support/server.ts";

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup) c();
  cleanup = [];
});

const implementations: Record<string, () => TransactionalNotificationStore> = {
  memory: () => new MemoryNotificationStore(),
  sqlite: () => {
    const dir = tempDir("notif-store-");
    const db: Db = openDatabase(join(dir, "s.sqlite"));
    cleanup.push(() => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return new SqliteNotificationStore(db, new Transactor(db));
  },
};

function listed(store: TransactionalNotificationStore, includeTerminal: boolean): NotificationRecord[] {
  const json = store.listJson({ includeTerminal });
  return JSON.parse(typeof json === "string" ? json : Buffer.from(json).toString("utf8")) as NotificationRecord[];
}

let seq = 0;
function record(fields: Partial<NotificationRecord> = {}): NotificationRecord {
  seq++;
  return notificationRecord({ id: `n${seq}`, key: `k${seq}`, ...fields });
}

describe.each(Object.keys(implementations))("application notification store contract: %s", (name) => {
  const make = implementations[name]!;

  it("puts, gets and replaces by id, keeping creation order in lists", () => {
    const store = make();
    const a = record();
    const b = record();
    store.put(a);
    store.put(b);
    store.put({ ...a, revision: 2, title: "changed" });
    expect(store.get(a.id)).toMatchObject({ revision: 2, title: "changed" });
    expect(store.list({ includeTerminal: false }).map((r) => r.id)).toEqual([a.id, b.id]);
    expect(store.get("missing")).toBeUndefined();
    expect(listed(store, true)).toEqual(store.list({ includeTerminal: true }));
  });

  it("lists the same active records as JSON as list() does, through every kind of change", () => {
    const store = make();
    const [a, b, c] = [record(), record(), record()];
    expect(listed(store, false)).toEqual([]);
    store.put(a);
    store.put(b);
    expect(listed(store, false)).toEqual([a, b]);
    store.put({ ...a, revision: 2, title: "changed" }); // an update keeps its place
    store.put(c);
    store.put({ ...b, revision: 2, status: "dismissed" }); // a terminal record leaves the active list
    expect(listed(store, false)).toEqual(store.list({ includeTerminal: false }));
    expect(listed(store, false).map((r) => r.id)).toEqual([a.id, c.id]);
    expect(listed(store, true)).toEqual(store.list({ includeTerminal: true }));
  });

  it("keeps a rolled-back change out of the JSON list, and shows a write's own change inside it", () => {
    const store = make();
    const a = record();
    store.put(a);
    expect(listed(store, false)).toEqual([a]);
    const b = record();
    expect(() =>
      store.transaction(() => {
        store.put(b);
        store.put({ ...a, revision: 2, status: "dismissed" });
        expect(listed(store, false)).toEqual([b]);
        throw new Error("roll back");
      }),
    ).toThrow("roll back");
    expect(listed(store, false)).toEqual([a]);
    expect(store.list({ includeTerminal: false })).toEqual([a]);
  });

  it("finds the active occurrence of a key, and none once it is terminal", () => {
    const store = make();
    const a = record({ key: "build" });
    store.put(a);
    expect(store.activeByKey("build")?.id).toBe(a.id);
    store.put({ ...a, status: "resolved", revision: 2 });
    expect(store.activeByKey("build")).toBeUndefined();
    const b = record({ key: "build" });
    store.put(b);
    expect(store.activeByKey("build")?.id).toBe(b.id);
    expect(store.list({ includeTerminal: false }).map((r) => r.id)).toEqual([b.id]);
    expect(store.list({ includeTerminal: true }).map((r) => r.id)).toEqual([a.id, b.id]);
  });

  it("selects active records by request and restart-scoped retention", () => {
    const store = make();
    const r1 = record({ request_id: "req-1" });
    const r1done = record({ request_id: "req-1", status: "expired" });
    const r2 = record({ request_id: "req-2" });
    const restart = record({ retention: { version: 1, policy: "until_server_restart", owner_epoch: "e1" } });
    for (const r of [r1, r1done, r2, restart]) store.put(r);
    expect(store.activeForRequest("req-1").map((r) => r.id)).toEqual([r1.id]);
    expect(store.activeRestartScoped().map((r) => r.id)).toEqual([restart.id]);
  });

  it("prunes the oldest terminal records first and never an active one", () => {
    const store = make();
    const active = Array.from({ length: 3 }, () => record());
    const terminal = Array.from({ length: 5 }, () => record());
    for (const r of [...active, ...terminal]) store.put(r);
    // They become terminal in reverse creation order: pruning follows that order, not creation.
    for (const r of [...terminal].reverse()) store.put({ ...r, status: "dismissed", revision: 2 });
    expect(store.pruneTerminal(2)).toBe(3);
    const left = store.list({ includeTerminal: true }).map((r) => r.id);
    expect(left).toEqual([...active.map((r) => r.id), terminal[0]!.id, terminal[1]!.id]);
    expect(store.pruneTerminal(2)).toBe(0);
    expect(store.pruneTerminal(0)).toBe(2);
    expect(store.list({ includeTerminal: true }).map((r) => r.id)).toEqual(active.map((r) => r.id));
  });

  it("rolls a failed transaction back whole", () => {
    const store = make();
    const a = record();
    store.put(a);
    expect(() =>
      store.transaction(() => {
        store.put({ ...a, status: "dismissed", revision: 2 });
        store.put(record());
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(store.list({ includeTerminal: true })).toEqual([a]);
    expect(store.activeByKey(a.key)?.id).toBe(a.id);
  });
});
