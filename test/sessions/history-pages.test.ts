// GET /sessions in pages (docs/sessions.md "History in pages", P1-P3), over a listening server and a SQLite file:
// pinned first, then the newest activity, then the greater id; walking next_before gives every chat once, also with
// equal updated_at; a cursor this server did not give is invalid_input; without limit and before, the answer is the
// whole list as before.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, expectStatus, newSession } from "./daily-support.ts";
import { startAppStack, type AppStack } from "./support.ts";

let stack: AppStack;
beforeEach(async () => {
  stack = await startAppStack({
    providers: { default: { provider: "reference_compatible", model: "scripted", base_url: "http://127.0.0.1:9/v1" } },
  });
});
afterEach(() => stack.close());

interface Page {
  sessions: Array<{ id: string; pinned?: boolean; updated_at: string }>;
  next_before: string | null;
}
const page = async (query: string) => (await expectStatus(call(stack, "GET", `/sessions${query}`), 200)).json as Page;

describe("history in pages", () => {
  it("P1: walking next_before lists every chat once in (pinned, updated_at, id) order, ties included", async () => {
    const ids: string[] = [];
    for (let index = 0; index < 7; index++) {
      ids.push(await newSession(stack));
      // Two chats share each instant: the id orders them.
      if (index % 2 === 1) stack.server.clock.t += 1000;
    }
    await expectStatus(call(stack, "PATCH", `/sessions/${ids[2]}`, { pinned: true }), 200);
    const walked: Page["sessions"] = [];
    let before: string | null = null;
    do {
      const next: Page = await page(`?limit=3${before ? `&before=${before}` : ""}`);
      expect(next.sessions.length).toBeLessThanOrEqual(3);
      walked.push(...next.sessions);
      before = next.next_before;
    } while (before !== null);
    expect(walked.map((s) => s.id).sort()).toEqual([...ids].sort());
    expect(walked[0]!.id).toBe(ids[2]);
    const keys = walked.map((s) => [s.pinned ? 1 : 0, s.updated_at, s.id] as const);
    for (let index = 1; index < keys.length; index++) {
      const [a, b] = [keys[index - 1]!, keys[index]!];
      const before = a[0] !== b[0] ? a[0] > b[0] : a[1] !== b[1] ? a[1] > b[1] : a[2] > b[2];
      expect(before).toBe(true);
    }
  });

  it("P2: a cursor this server did not give, or a limit out of 1..200, is invalid_input", async () => {
    // Well-formed base64url JSON that is not a cursor's three keys is refused like garbage.
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
    const bad = [
      forged([2, "2026", "x"]),
      forged([0, "2026"]),
      forged({ pinned: 0 }),
      forged([0, "x".repeat(65), "id"]),
    ];
    for (const query of [
      "?before=not-a-cursor",
      `?before=${"A".repeat(600)}`,
      ...bad.map((cursor) => `?before=${cursor}`),
      "?limit=0",
      "?limit=201",
      "?limit=x",
      "?limit=NaN",
      "?limit=1.5",
    ]) {
      const answer = await expectStatus(call(stack, "GET", `/sessions${query}`), 400);
      expect((answer.json as { error: { code: string } }).error.code).toBe("invalid_input");
    }
  });

  it("P3: without limit and before the answer is the whole list, as before", async () => {
    for (let index = 0; index < 3; index++) await newSession(stack);
    const whole = (await expectStatus(call(stack, "GET", "/sessions"), 200)).json as Record<string, unknown>;
    expect(Object.keys(whole)).toEqual(["sessions"]);
    expect((whole.sessions as unknown[]).length).toBe(3);
    const last = await page("?limit=3");
    expect(last.next_before).toBeNull();
  });

  it("P4: messages_limit and messages_before give the last shown messages before an index, with messages_total and messages_start", async () => {
    const id = await newSession(stack);
    for (let index = 0; index < 7; index++)
      await expectStatus(call(stack, "POST", `/sessions/${id}/messages`, { role: "user", content: `m${index}` }), 201);
    const get = async (query: string) =>
      (await expectStatus(call(stack, "GET", `/sessions/${id}${query}`), 200)).json.session as {
        messages: Array<{ content: string }>;
        messages_total?: number;
        messages_start?: number;
      };
    const last = await get("?messages_limit=3");
    expect([last.messages.map((m) => m.content), last.messages_total, last.messages_start]).toEqual([
      ["m4", "m5", "m6"],
      7,
      4,
    ]);
    const earlier = await get(`?messages_limit=3&messages_before=${last.messages_start}`);
    expect([earlier.messages.map((m) => m.content), earlier.messages_start]).toEqual([["m1", "m2", "m3"], 1]);
    const first = await get("?messages_limit=3&messages_before=1");
    expect([first.messages.map((m) => m.content), first.messages_start]).toEqual([["m0"], 0]);
    const past = await get("?messages_limit=2&messages_before=99");
    expect([past.messages.map((m) => m.content), past.messages_start]).toEqual([["m5", "m6"], 5]);
    const whole = await get("");
    expect([whole.messages.length, whole.messages_total, whole.messages_start]).toEqual([7, undefined, undefined]);
  });

  it("P5: a messages_limit out of 1..1000 or a negative messages_before is invalid_input; another chat's id is 404", async () => {
    const id = await newSession(stack);
    for (const query of ["?messages_limit=0", "?messages_limit=1001", "?messages_before=-1", "?messages_limit=x"]) {
      const answer = await expectStatus(call(stack, "GET", `/sessions/${id}${query}`), 400);
      expect((answer.json as { error: { code: string } }).error.code).toBe("invalid_input");
    }
    await expectStatus(call(stack, "GET", "/sessions/no-such-chat?messages_limit=5"), 404);
  });

  it("P10: GET /sessions/{id}/messages?limit=n gives the last n messages with their cursor, messages_total and messages_start; a bad limit is invalid_input", async () => {
    const id = await newSession(stack);
    for (let index = 0; index < 5; index++)
      await expectStatus(call(stack, "POST", `/sessions/${id}/messages`, { role: "user", content: `m${index}` }), 201);
    type Snapshot = { messages: Array<{ content: string }>; cursor_event_id: string } & Record<string, unknown>;
    const read = async (query: string) =>
      (await expectStatus(call(stack, "GET", `/sessions/${id}/messages${query}`), 200)).json as Snapshot;
    const whole = await read("");
    const tail = await read("?limit=2");
    expect([tail.messages.map((m) => m.content), tail.messages_total, tail.messages_start]).toEqual([
      ["m3", "m4"],
      5,
      3,
    ]);
    expect(tail.cursor_event_id).toBe(whole.cursor_event_id);
    expect([whole.messages.length, "messages_total" in whole]).toEqual([5, false]);
    const more = await read("?limit=50");
    expect([more.messages.length, more.messages_start]).toEqual([5, 0]);
    for (const query of ["?limit=0", "?limit=1001", "?limit=x"]) {
      const answer = await expectStatus(call(stack, "GET", `/sessions/${id}/messages${query}`), 400);
      expect((answer.json as { error: { code: string } }).error.code).toBe("invalid_input");
    }
    await expectStatus(call(stack, "GET", "/sessions/no-such-chat/messages?limit=5"), 404);
  });
});
