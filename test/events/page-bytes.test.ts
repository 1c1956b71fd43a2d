// Issue 11 item 14: a page of events is capped by bytes as well as by count, in the store (so the HTTP route and
// the forwarder, which both read through EventStore.list, get the cap) and over HTTP.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { Transactor } from "../../server/db/transactor.ts";
import { DEFAULT_MAX_PAGE_BYTES, EventStore } from "../../server/events/event-store.ts";
import { ADMIN_TOKEN, startTestServer, tempDir, type TestServer } from "../support/server.ts";

const dirs: string[] = [];
const dbs: Db[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openStore(maxPageBytes: number) {
  const dir = tempDir();
  dirs.push(dir);
  const db = openDatabase(join(dir, "server.sqlite"));
  dbs.push(db);
  return new EventStore(db, new Transactor(db), undefined, Date.now, { maxPageBytes });
}

const KIB = 1024;
const text = (kib: number) => "x".repeat(kib * KIB);
const bytesOf = (events: unknown[]) => events.reduce<number>((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);

describe("EventStore page byte cap", () => {
  it("stops a page at the cap with hasMore, holds at least one event, and the next page goes on from there", () => {
    const store = openStore(1000 * KIB);
    const ids = [300, 300, 300, 300, 2000, 10].map(
      (kib) =>
        store.publish({
          type: "final",
          session_id: "s",
          request_id: "r",
          messages: [{ role: "assistant", content: text(kib) }],
        }).event_id,
    );

    const first = store.list({ sinceId: 0, limit: 100 });
    expect(first.events.map((e) => e.event_id)).toEqual(ids.slice(0, 3));
    expect(first.hasMore).toBe(true);
    expect(first.lastId).toBe(Number(ids[2]));
    expect(bytesOf(first.events)).toBeLessThanOrEqual(1000 * KIB);

    const second = store.list({ sinceId: first.lastId, limit: 100 });
    expect(second.events.map((e) => e.event_id)).toEqual([ids[3]]);
    expect(second.hasMore).toBe(true);

    // One event bigger than the cap still makes a page of its own: a reader is never stuck.
    const third = store.list({ sinceId: second.lastId, limit: 100 });
    expect(third.events.map((e) => e.event_id)).toEqual([ids[4]]);
    expect(third.hasMore).toBe(true);

    const last = store.list({ sinceId: third.lastId, limit: 100 });
    expect(last.events.map((e) => e.event_id)).toEqual([ids[5]]);
    expect(last.hasMore).toBe(false);

    // A caller that must see everything at once (crash recovery) lifts the cap explicitly.
    expect(store.list({ sinceId: 0, limit: 100, maxBytes: Number.POSITIVE_INFINITY }).events).toHaveLength(6);
  });

  it("applies the cap by default and reports a full count page as hasMore too", () => {
    const store = openStore(DEFAULT_MAX_PAGE_BYTES);
    for (let i = 0; i < 3; i++) store.publish({ type: "checkpoint", session_id: "s" });
    expect(store.list({ sinceId: 0, limit: 2 })).toMatchObject({ hasMore: true, lastId: 2 });
    expect(store.list({ sinceId: 2, limit: 2 })).toMatchObject({ hasMore: false, lastId: 3 });
  });
});

describe("GET /events page byte cap over HTTP", () => {
  it("answers a big session's history in pages of at most the cap (or one event), with has_more until the end", async () => {
    const server = await startTestServer();
    servers.push(server);
    const base = await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, text: await res.text() };
    };
    const id = JSON.parse((await call("POST", "/sessions", {})).text).session.id as string;
    // Each message_appended carries the whole session: 6 appends of 700 KiB make about 17 MB of events.
    for (let i = 0; i < 6; i++)
      expect(
        (await call("POST", `/sessions/${id}/messages`, { role: "user", content: `${i}${text(700)}` })).status,
      ).toBe(201);

    const seen: string[] = [];
    let since = "0";
    let pages = 0;
    for (; pages < 50; pages++) {
      const res = await call("GET", `/events?since_id=${since}&limit=1000`);
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text) as { events: { event_id: string }[]; has_more: boolean; next_since_id: string };
      expect(body.events.length).toBeGreaterThanOrEqual(1);
      if (body.events.length > 1) expect(bytesOf(body.events)).toBeLessThanOrEqual(DEFAULT_MAX_PAGE_BYTES);
      seen.push(...body.events.map((e) => e.event_id));
      since = body.next_since_id;
      if (!body.has_more) break;
    }
    expect(pages).toBeGreaterThan(3); // limit=1000 alone would have answered all 14 events at once
    // Every event exactly once, in order: 2 for the creation, 2 per append (message_appended, checkpoint).
    expect(seen).toHaveLength(2 + 6 * 2);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(seen);
  }, 60_000);
});
