// docs/events.md E19: a commit wakes only the long-polls whose filter (session_id, request_id, none) matches an
// event it wrote. Wake-ups are counted: on the store's signal directly, and over a listening server by the
// number of log reads a waiting poll makes.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { Transactor } from "../../server/db/transactor.ts";
import type { CommitFilter } from "../../server/events/commit-signal.ts";
import { EventStore } from "../../server/events/event-store.ts";
import { ADMIN_TOKEN, startTestServer, tempDir, type TestServer } from "../support/server.ts";

const dirs: string[] = [];
const dbs: Db[] = [];
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openStore() {
  const dir = tempDir();
  dirs.push(dir);
  const db = openDatabase(join(dir, "server.sqlite"));
  dbs.push(db);
  const transactor = new Transactor(db);
  return { transactor, store: new EventStore(db, transactor) };
}

/** Starts a wait with `filter` and reports whether it was woken, without waiting out its timeout. */
function waiter(store: EventStore, filter: CommitFilter) {
  const abort = new AbortController();
  let woken = false;
  const done = store.commits
    .waitBeyond(store.latestId, () => store.latestId, 60_000, abort.signal, filter)
    .then((w) => (woken = w));
  return { woken: () => woken, stop: () => (abort.abort(), done) };
}

describe("commit wake-ups by filter", () => {
  it("wakes the waiters a commit's events match, and no other", async () => {
    const { store, transactor } = openStore();
    const waiters = {
      sessionA: waiter(store, { sessionId: "A" }),
      sessionB: waiter(store, { sessionId: "B" }),
      requestR: waiter(store, { requestId: "r" }),
      requestRinB: waiter(store, { sessionId: "B", requestId: "r" }),
      requestQ: waiter(store, { requestId: "q" }),
      everything: waiter(store, {}),
    };
    expect(store.commits.waiting).toBe(6);
    // One transaction, two events: session A's request r and an application event (no session, no request).
    transactor.run(() => {
      store.publish({ type: "request_started", session_id: "A", request_id: "r", stream: true });
      store.publish({ type: "application_notification_created" });
    });
    await Promise.resolve();
    const woken = Object.entries(waiters)
      .filter(([, w]) => w.woken())
      .map(([name]) => name);
    expect(woken.sort()).toEqual(["everything", "requestR", "sessionA"]);
    expect(store.commits.waiting).toBe(3);
    for (const w of Object.values(waiters)) await w.stop();
    expect(store.commits.waiting).toBe(0);
  });

  it("a group commit of many sessions' events wakes each of their waiters once", async () => {
    const { store } = openStore();
    const waiters = ["A", "B", "C"].map((sessionId) => waiter(store, { sessionId }));
    store.publish({ type: "checkpoint", session_id: "A" });
    store.publish({ type: "checkpoint", session_id: "B" });
    await new Promise((r) => setImmediate(r)); // the group commits at the end of the microtask
    expect(waiters.map((w) => w.woken())).toEqual([true, true, false]);
    for (const w of waiters) await w.stop();
  });
});

describe("a long-poll over a listening server", () => {
  it("is not woken by commits on another session: it reads the log once, then only for its own session's event", async () => {
    server = await startTestServer();
    const { ctx, app } = server.runtime;
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const newSession = async () =>
      (await server!.request({ method: "POST", url: "/sessions", payload: {} })).json.session.id as string;
    const append = (id: string, content: string) =>
      server!.request({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content } });
    const [a, b] = [await newSession(), await newSession()];
    const reads = vi.spyOn(ctx.events, "list");
    const readsOf = (sessionId: string) => reads.mock.calls.filter(([query]) => query.sessionId === sessionId).length;

    const poll = fetch(`${base}/events?session_id=${b}&since_id=${ctx.events.latestId}&wait_ms=30000`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    while (ctx.events.commits.waiting === 0) await new Promise((r) => setImmediate(r));
    expect(readsOf(b)).toBe(1);
    for (let i = 0; i < 5; i++) await append(a, `not for b ${i}`);
    expect(readsOf(b)).toBe(1);
    await append(b, "for b");
    const body = (await (await poll).json()) as { events: Array<{ type: string; content?: string }> };
    expect(body.events.map((e) => e.type)).toEqual(["message_appended", "checkpoint"]);
    expect(readsOf(b)).toBe(2);
  });
});
