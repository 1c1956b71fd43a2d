// Issue 11 item 15: a session version refers to its messages instead of copying them, and an event refers to
// the session version it carries; what is read back is exactly what was published, also after a reopen.
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_FILE } from "../../server/runtime.ts";
import { SessionStore } from "../../server/sessions/session-store.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(dataDir?: string): Promise<TestServer> {
  const server = await startTestServer({}, dataDir ? { dataDir } : {});
  servers.push(server);
  return server;
}

async function closeKeepingData(server: TestServer): Promise<void> {
  servers.splice(servers.indexOf(server), 1);
  await server.close(true);
}

const KIB = 1024;

describe("session storage", () => {
  it("grows the database by at most 3x the content appended (each message stored once, not once per version)", async () => {
    const server = await start();
    const id = (await server.request({ method: "POST", url: "/sessions", payload: {} })).json.session.id as string;
    await closeKeepingData(server);
    const file = join(server.dataDir, DATABASE_FILE);
    const before = statSync(file).size;

    const reopened = await start(server.dataDir);
    const appends = 10;
    const size = 128 * KIB;
    for (let i = 0; i < appends; i++) {
      const content = `${i}:`.padEnd(size, String.fromCharCode(97 + i));
      expect(
        (
          await reopened.request({
            method: "POST",
            url: `/sessions/${id}/messages`,
            payload: { role: "user", content },
          })
        ).status,
      ).toBe(201);
    }
    await closeKeepingData(reopened); // folds the WAL into the file
    const growth = statSync(file).size - before;
    // Copying the session into every version and every event grew it by ~11x here (quadratic in the appends).
    expect(growth).toBeLessThanOrEqual(3 * appends * size);
    // Each message's text is stored once: message_appended repeating it in `content` made ~2x.
    expect(growth).toBeLessThanOrEqual(1.5 * appends * size);
    expect(growth).toBeGreaterThanOrEqual(appends * size);
    servers.push(await start(server.dataDir)); // so the temp dir is removed
  }, 60_000);

  it("reads every session event back byte for byte as published, and sessions and all versions survive a reopen", async () => {
    const server = await start();
    const published: Record<string, string> = {}; // session JSON of each version, as the routes answered it
    // Less what the answer adds for its caller (owner, owner_name, shares: docs/people.md); events carry the session.
    const stored = ({
      owner: _o,
      owner_name: _n,
      shares: _s,
      ...session
    }: {
      version: number;
      [key: string]: unknown;
    }) => session;
    const keep = (session: { version: number }) => (published[session.version] = JSON.stringify(stored(session)));
    const created = (await server.request({ method: "POST", url: "/sessions", payload: {} })).json.session;
    keep(created);
    const id = created.id as string;
    for (const content of ["one", "two", "three", "four"]) {
      const res = await server.request({
        method: "POST",
        url: `/sessions/${id}/messages`,
        payload: { role: "user", content, metadata: { n: content.length } },
      });
      keep(res.json.session);
    }
    keep(
      (await server.request({ method: "PATCH", url: `/sessions/${id}/messages/1`, payload: { content: "TWO" } })).json
        .session,
    );
    keep(
      (await server.request({ method: "DELETE", url: `/sessions/${id}/messages`, payload: { indices: [0, 2] } })).json
        .session,
    );
    keep(
      (
        await server.request({
          method: "POST",
          url: `/sessions/${id}/messages`,
          payload: { role: "assistant", content: "five" },
        })
      ).json.session,
    );
    const fork = (await server.request({ method: "POST", url: `/sessions/${id}/fork`, payload: {} })).json.session;
    const fork2 = (
      await server.request({
        method: "POST",
        url: `/sessions/${fork.id}/messages`,
        payload: { role: "user", content: "six" },
      })
    ).json.session;

    const readBack = async (s: TestServer) =>
      (await s.request({ method: "GET", url: "/events?since_id=0&limit=1000" })).text;
    const text = await readBack(server);
    const events = JSON.parse(text).events as Array<
      Record<string, unknown> & { type: string; session?: { id: string; version: number } }
    >;
    const ofSession = events.filter((e) => e.session?.id === id);
    expect(ofSession.map((e) => e.type)).toEqual([
      "session_created",
      ...Array(4).fill("message_appended"),
      "message_modified",
      "messages_deleted",
      "message_appended",
    ]);
    for (const event of ofSession) expect(JSON.stringify(event.session)).toBe(published[event.session!.version]);
    // Keys in the order they were published, `message` the very message appended.
    const appended = ofSession.find((e) => e.type === "message_appended")!;
    expect(Object.keys(appended)).toEqual([
      "event_id",
      "type",
      "session_id",
      "role",
      "content",
      "metadata",
      "message",
      "session",
      "timestamp",
    ]);
    expect(JSON.stringify(appended.message)).toBe('{"role":"user","content":"one","metadata":{"n":3}}');
    for (const e of ofSession.filter((e) => e.type === "message_appended")) {
      expect(JSON.stringify(e.message)).toBe(
        JSON.stringify({ role: e.role, content: e.content, metadata: e.metadata }),
      );
    }
    const forkEvents = events.filter((e) => e.session?.id === fork.id);
    expect(forkEvents.map((e) => JSON.stringify(e.session))).toEqual([
      JSON.stringify(stored(fork)),
      JSON.stringify(stored(fork2)),
    ]);

    const head = JSON.stringify(server.runtime.ctx.sessions.get(id));
    await closeKeepingData(server);
    const reopened = await start(server.dataDir);
    expect(await readBack(reopened)).toBe(text);
    expect(JSON.stringify(reopened.runtime.ctx.sessions.get(id))).toBe(head);
    expect(JSON.stringify((await reopened.request({ method: "GET", url: `/sessions/${fork.id}` })).json.session)).toBe(
      JSON.stringify(fork2),
    );
    // The next save goes on from the head it left, and shares what it did not change.
    const next = (
      await reopened.request({
        method: "POST",
        url: `/sessions/${id}/messages`,
        payload: { role: "user", content: "seven" },
      })
    ).json.session;
    expect(next.version).toBe(9);
    expect(next.messages.map((m: { content: string }) => m.content)).toEqual(["TWO", "four", "five", "seven"]);
  });

  it("keeps every version of arbitrary changes (insert in the middle, reorder, no change) readable as saved", async () => {
    const server = await start();
    const { sessions } = server.runtime.ctx;
    const id = sessions.create().id;
    for (const content of ["a", "b", "c"]) sessions.append(id, { role: "user", content });
    const saved: string[] = [];
    const change = (
      next: (messages: readonly { role: "user"; content: string }[]) => { role: "user"; content: string }[],
    ) =>
      saved.push(
        JSON.stringify(
          sessions.change(id, (current) => ({
            next: { ...current, messages: next(current.messages as { role: "user"; content: string }[]) },
            events: () => [],
            result: (s) => s,
          })),
        ),
      );
    change(([a, ...rest]) => [a!, { role: "user", content: "inserted" }, ...rest]);
    change((messages) => [...messages].reverse());
    change((messages) => [...messages]);
    change((messages) => messages.filter((m) => m.content !== "inserted"));
    expect(JSON.parse(saved.at(-1)!).messages.map((m: { content: string }) => m.content)).toEqual(["c", "b", "a"]);
    const versions = saved.map((json) => JSON.parse(json).version as number);
    await closeKeepingData(server);
    const reopened = await start(server.dataDir);
    const store = new SessionStore(reopened.runtime.ctx.db);
    expect(versions.map((v) => JSON.stringify(store.version(id, v)))).toEqual(saved);
    expect(JSON.stringify(reopened.runtime.ctx.sessions.get(id))).toBe(saved.at(-1));
  });
});
