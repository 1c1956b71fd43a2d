import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { holds } from "../support/holds.ts";
import { formatEventId } from "../../client/wire/index.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";
import { until } from "../client/support/stack.ts";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({ events: { retention_max_events: 1_000_000, max_page_size: 50 } });
});
afterEach(() => server.close());

const get = async (url: string) => server.request({ method: "GET", url });
const newSession = async () =>
  (await server.request({ method: "POST", url: "/sessions", payload: {} })).json.session.id as string;
const append = (id: string, content: string) =>
  server.request({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content } });

describe("GET /events", () => {
  it("bootstraps with no filter: no events, the latest id and the epoch", async () => {
    await newSession();
    const res = await get("/events");
    expect(res.json).toEqual({
      events: [],
      latest_event_id: formatEventId(2),
      next_since_id: formatEventId(2),
      epoch: server.runtime.ctx.events.epoch,
    });
  });

  it("with session_id and no since_id starts at the session's cursor, not at the start of history", async () => {
    const id = await newSession();
    await append(id, "a");
    const { cursor_event_id } = (await get(`/sessions/${id}/messages`)).json;
    expect((await get(`/events?session_id=${id}`)).json.events).toEqual([]);
    server.runtime.ctx.events.publish({ type: "request_started", session_id: id, request_id: "r", stream: true });
    const res = await get(`/events?session_id=${id}`);
    expect(res.json.events.map((e: { type: string }) => e.type)).toEqual(["request_started"]);
    expect(res.json.events[0].event_id > cursor_event_id).toBe(true);
  });

  it("pages with a limit, next_since_id and has_more, and filters by request", async () => {
    const id = await newSession();
    for (let i = 0; i < 60; i++)
      server.runtime.ctx.events.publish({ type: "checkpoint", session_id: id, request_id: i % 2 ? "odd" : "even" });
    const first = (await get("/events?since_id=0&limit=1000")).json; // capped at max_page_size 50
    expect(first.events).toHaveLength(50);
    expect(first.has_more).toBe(true);
    expect(first.next_since_id).toBe(first.events[49].event_id);
    const second = (await get(`/events?since_id=${first.next_since_id}`)).json;
    expect(second.events).toHaveLength(12);
    expect(second.has_more).toBe(false);
    const odd = (await get("/events?since_id=0&request_id=odd")).json.events;
    expect(odd).toHaveLength(30);
    expect(odd.every((e: { request_id: string }) => e.request_id === "odd")).toBe(true);
  });

  it("accepts a short decimal since_id and compacts the window", async () => {
    const id = await newSession();
    const publish = server.runtime.ctx.events.publish.bind(server.runtime.ctx.events);
    for (const text of ["a", "b", "c"])
      publish({ type: "partial", session_id: id, request_id: "r", message: { role: "assistant", content: text } });
    const res = (await get("/events?since_id=2")).json;
    expect(res.events).toEqual([
      expect.objectContaining({
        type: "partial",
        event_id: formatEventId(5),
        message: { role: "assistant", content: "abc" },
      }),
    ]);
    expect(res.next_since_id).toBe(formatEventId(5));
  });

  it("answers 410 cursor_expired for a pruned cursor or another store's epoch", async () => {
    await server.close();
    server = await startTestServer({ events: { retention_max_events: 2 } });
    const id = await newSession();
    for (let i = 0; i < 5; i++) await append(id, String(i));
    server.runtime.ctx.events.prune();
    const expired = await get("/events?since_id=1");
    expect(expired.status).toBe(410);
    expect(expired.json.error.code).toBe("cursor_expired");
    const epoch = await get(`/events?since_id=${server.runtime.ctx.events.latestId}&epoch=other`);
    expect(epoch.status).toBe(410);
    expect(epoch.json.error.code).toBe("cursor_expired");
    expect(
      (await get(`/events?since_id=${server.runtime.ctx.events.latestId}&epoch=${server.runtime.ctx.events.epoch}`))
        .status,
    ).toBe(200);
  });

  it("a filtered page reports next_since_id at the head, so the next poll skips what did not match", async () => {
    const mine = await newSession();
    const other = await newSession();
    await append(other, "x");
    const res = (await get(`/events?session_id=${mine}&since_id=0`)).json;
    expect(res.events.every((e: { session_id: string }) => e.session_id === mine)).toBe(true);
    expect(res.next_since_id).toBe(formatEventId(server.runtime.ctx.events.latestId));
  });

  it("a request poll without since_id starts at the oldest retained event, not at a pruned cursor", async () => {
    await server.close();
    server = await startTestServer({ events: { retention_max_events: 3 } });
    const id = await newSession();
    for (let i = 0; i < 4; i++) await append(id, String(i));
    server.runtime.ctx.events.publish({ type: "request_started", session_id: id, request_id: "r9", stream: true });
    server.runtime.ctx.events.prune();
    const res = await get("/events?request_id=r9");
    expect(res.status).toBe(200);
    expect(res.json.events.map((e: { type: string }) => e.type)).toEqual(["request_started"]);
  });

  it("a session poll whose session cursor fell behind retention answers 410, as the same cursor given explicitly does", async () => {
    await server.close();
    server = await startTestServer({ events: { retention_max_events: 3 } });
    const stale = await newSession();
    const { cursor_event_id } = (await get(`/sessions/${stale}/messages`)).json;
    // An event of the stale session after its cursor, then enough of another session's to prune it away.
    server.runtime.ctx.events.publish({ type: "request_started", session_id: stale, request_id: "lost", stream: true });
    const busy = await newSession();
    for (let i = 0; i < 4; i++) await append(busy, String(i));
    server.runtime.ctx.events.prune();
    expect(server.runtime.ctx.events.oldestValidCursor).toBeGreaterThan(Number(cursor_event_id));
    for (const url of [`/events?session_id=${stale}`, `/events?session_id=${stale}&since_id=${cursor_event_id}`]) {
      const res = await get(url);
      expect(res.status).toBe(410);
      expect(res.json.error.code).toBe("cursor_expired");
    }
  });

  it("404s a session poll without since_id for an unknown session", async () => {
    expect((await get("/events?session_id=ghost")).json.error.code).toBe("session_not_found");
  });
});

describe("long-poll over a listening server", () => {
  it("answers as soon as a matching event commits, ignoring other sessions' commits", async () => {
    const base = await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const mine = await newSession();
    const other = await newSession();
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const since = server.runtime.ctx.events.latestId;
    const poll = fetch(`${base}/events?since_id=${since}&session_id=${mine}&wait_ms=20000`, { headers }).then((r) =>
      r.json(),
    );
    let answered = false;
    void poll.then(() => (answered = true));
    const { commits } = server.runtime.ctx.events;
    // The poll found nothing and waits on the commit signal.
    await holds(() => commits.waiting === 1, "the long-poll waiting", 10_000);
    await append(other, "not for you");
    // Another session's commit did not answer it: it is still the one waiter, and its answer (below) holds only
    // what came after.
    expect(commits.waiting).toBe(1);
    expect(answered).toBe(false);
    await append(mine, "for you");
    const body = (await poll) as { events: Array<{ type: string; session_id: string; content?: string }> };
    expect(body.events.map((e) => [e.type, e.session_id])).toEqual([
      ["message_appended", mine],
      ["checkpoint", mine],
    ]);
    expect(body.events[0]!.content).toBe("for you");
  });

  it("shutdown answers a pending long-poll and does not wait out its keep-alive connection", async () => {
    const base = await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const poll = fetch(`${base}/events?since_id=0&wait_ms=30000`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    }).then((r) => r.json());
    // Close only once the poll is waiting inside the route (a fixed sleep raced the request on a loaded machine).
    await until(() => server.runtime.ctx.events.commits.waiting === 1, "the long-poll waiting");
    await server.close();
    expect(await poll).toMatchObject({ events: [] });
    server = await startTestServer(); // afterEach closes this one
  });

  it("answers empty when the wait ends with nothing new", async () => {
    const base = await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const res = await fetch(`${base}/events?since_id=0&wait_ms=100`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await res.json()).toMatchObject({ events: [], next_since_id: formatEventId(0) });
  });
});

describe("snapshot + events since its cursor (rule 4)", () => {
  it("a reader that loads and polls while writers append sees every effect exactly once", async () => {
    const base = await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const headers = { "authorization": `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
    const id = await newSession();
    const writers = Array.from({ length: 4 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 25; i++) {
          await fetch(`${base}/sessions/${id}/messages`, {
            method: "POST",
            headers,
            body: JSON.stringify({ role: "user", content: `${w}:${i}` }),
          });
        }
      })(),
    );
    let done = false;
    const allWritten = Promise.all(writers).then(() => (done = true));
    let rounds = 0;
    while (!done || rounds < 2) {
      rounds++;
      const snapshot = (await (await fetch(`${base}/sessions/${id}/messages`, { headers })).json()) as {
        messages: Array<{ content: string }>;
        version: number;
        cursor_event_id: string;
      };
      const seen = snapshot.messages.map((m) => m.content);
      let cursor = snapshot.cursor_event_id;
      for (;;) {
        const page = (await (
          await fetch(`${base}/events?session_id=${id}&since_id=${cursor}`, { headers })
        ).json()) as {
          events: Array<{ type: string; content: string; session: { version: number } }>;
          next_since_id: string;
        };
        for (const event of page.events) {
          if (event.type !== "message_appended") continue;
          expect(event.session.version).toBeGreaterThan(snapshot.version); // never an effect the snapshot already had
          seen.push(event.content);
        }
        if (page.events.length === 0) break;
        cursor = page.next_since_id;
      }
      const now = (await (await fetch(`${base}/sessions/${id}`, { headers })).json()) as {
        session: { messages: Array<{ content: string }> };
      };
      // Writers may have appended after our last poll; what we saw must be a prefix of the truth, with no repeats.
      expect(now.session.messages.map((m) => m.content).slice(0, seen.length)).toEqual(seen);
      if (done) {
        expect(seen).toHaveLength(now.session.messages.length);
      }
    }
    await allWritten;
    expect(rounds).toBeGreaterThan(1);
  });
});
