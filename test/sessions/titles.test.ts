// Titles written by the model after a session's first reply (docs/sessions.md "Titles", T1-T5), over a listening
// server against the scripted backend, and forks titled "<title> (fork)".
import { afterEach, describe, expect, it } from "vitest";
import type { AnyEvent } from "../../client/wire/index.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { completion, dialectStream, type Scenario } from "../../scripts/scripted-backend/index.ts";
import { completionBodies, waitForEvent } from "../runner/helpers.ts";
import { allEvents, call, expectStatus, newSession } from "./daily-support.ts";
import { startAppStack, type AppStack } from "./support.ts";

let stack: AppStack | undefined;
afterEach(() => stack?.close());

async function start(
  config: ConfigInput = { titles: { enabled: true, title_model: "tiny-titler" } },
): Promise<AppStack> {
  stack = await startAppStack(config);
  return stack;
}

/** Sends and waits for its request_completed; `then` is queued after the reply (the title request's answer). */
async function send(s: AppStack, sid: string, content: string, reply: string, ...then: Scenario[]): Promise<string> {
  s.backend.script(dialectStream("openai", { content: reply }), ...then);
  const { request_id } = (await expectStatus(call(s, "POST", `/sessions/${sid}/send`, { content }), 202)).json;
  await waitForEvent(s.server, request_id);
  return request_id as string;
}

/** Resolves with the first stored event `match` accepts (woken by commits; the test timeout bounds it). */
async function eventWhere(s: AppStack, match: (event: AnyEvent) => boolean): Promise<AnyEvent> {
  const store = s.server.runtime.ctx.events;
  for (;;) {
    const seen = store.latestId;
    const found = store.list({ sinceId: 0, limit: 100_000 }).events.find(match);
    if (found) return found;
    await store.waitBeyond(seen, 60_000);
  }
}

const titleOf = async (s: AppStack, sid: string) =>
  (await expectStatus(call(s, "GET", `/sessions/${sid}`), 200)).json.session.title as string | undefined;

describe("titles written by the model", () => {
  it("T1: after the first reply, with title_model, published as session_updated after request_completed", async () => {
    const s = await start();
    const sid = await newSession(s);
    const title = { kind: "json", body: completion({ content: 'Title: "Lisbon Trip Plan."\nMore words' }) } as const;
    const requestId = await send(s, sid, "Plan a three-day trip to Lisbon for me", "Day one: Alfama...", title);
    const updated = await eventWhere(s, (e) => e.type === "session_updated");
    expect(updated).toMatchObject({ session_id: sid, session: { title: "Lisbon Trip Plan" } });
    const completed = await eventWhere(s, (e) => e.type === "request_completed" && e.request_id === requestId);
    expect(updated.event_id > completed.event_id).toBe(true);

    const [user, asked] = completionBodies(s.backend) as Array<Record<string, any>>;
    expect(user!.model).toBe("scripted");
    expect(user!.messages).toEqual([{ role: "user", content: "Plan a three-day trip to Lisbon for me" }]);
    expect(asked).toMatchObject({ model: "tiny-titler", stream: false });
    expect(asked!.tools).toBeUndefined();
    expect(asked!.messages[0].role).toBe("system");
    expect(asked!.messages[1].content).toContain("Plan a three-day trip to Lisbon");
    expect(asked!.messages[1].content).toContain("Day one: Alfama");
    // It is no request of the session: no request events carry it.
    expect((await allEvents(s)).filter((e) => e.request_id !== undefined && e.request_id !== requestId)).toEqual([]);
    expect((await expectStatus(call(s, "GET", "/sessions"), 200)).json.sessions[0].title).toBe("Lisbon Trip Plan");

    // Only the first reply is titled.
    await send(s, sid, "and day four?", "Sintra.");
    expect(completionBodies(s.backend)).toHaveLength(3);
  });

  it("T2: a title still being written holds nothing: the next send starts and completes at once", async () => {
    const s = await start({ titles: {} });
    const sid = await newSession(s);
    let titleAsked!: () => void;
    const asked = new Promise<void>((resolve) => (titleAsked = resolve));
    s.backend.script(dialectStream("openai", { content: "first answer" }), {
      kind: "hang",
      onReceived: () => titleAsked(),
    });
    const first = (await expectStatus(call(s, "POST", `/sessions/${sid}/send`, { content: "first" }), 202)).json
      .request_id;
    await waitForEvent(s.server, first);
    await asked;
    await send(s, sid, "second", "second answer");
    const bodies = completionBodies(s.backend) as Array<Record<string, any>>;
    expect(bodies.map((b) => [b.model, b.stream])).toEqual([
      ["scripted", true],
      ["scripted", false],
      ["scripted", true],
    ]);
    expect(await titleOf(s, sid)).toBeUndefined();
  });

  it("T3: off, a failed title request, or a title the user gave: no title from the model, the first message names it", async () => {
    const off = await start({ titles: { enabled: false } });
    const a = await newSession(off);
    await send(off, a, "hello there", "hi");
    expect(completionBodies(off.backend)).toHaveLength(1);
    expect((await expectStatus(call(off, "GET", "/sessions"), 200)).json.sessions[0].title).toBe("hello there");
    await off.close();

    const s = await start();
    const failing = await newSession(s);
    s.backend.script(dialectStream("openai", { content: "hi" }), { kind: "status", status: 500 });
    const requestId = (
      await expectStatus(call(s, "POST", `/sessions/${failing}/send`, { content: "hello again" }), 202)
    ).json.request_id;
    await waitForEvent(s.server, requestId);
    await s.backend.waitForRequests(2);
    const renamed = await newSession(s);
    await expectStatus(call(s, "PATCH", `/sessions/${renamed}`, { title: "Mine" }), 200);
    await send(s, renamed, "named by me", "ok");
    // One more title request would come after this send's; a third session proves the failed one ended quietly.
    const third = await newSession(s);
    await send(s, third, "third", "3", { kind: "json", body: completion({ content: "Third" }) });
    await eventWhere(s, (e) => e.type === "session_updated" && e.session_id === third);
    expect((completionBodies(s.backend) as Array<Record<string, unknown>>).map((b) => b.model)).toEqual([
      "scripted",
      "tiny-titler",
      "scripted",
      "scripted",
      "tiny-titler",
    ]);
    expect(await titleOf(s, failing)).toBeUndefined();
    expect(await titleOf(s, renamed)).toBe("Mine");
    expect((await allEvents(s)).filter((e) => e.type === "error")).toEqual([]);
  });

  it("T4: a fork is titled '<title> (fork)', from a given title or the first message", async () => {
    const s = await start({ titles: { enabled: false } });
    const sid = await newSession(s);
    const untitled = (await expectStatus(call(s, "POST", `/sessions/${sid}/fork`, {}), 201)).json.session;
    expect(untitled).not.toHaveProperty("title");
    await expectStatus(
      call(s, "POST", `/sessions/${sid}/messages`, { role: "user", content: "Why is the sky blue?" }),
      201,
    );
    const derived = (await expectStatus(call(s, "POST", `/sessions/${sid}/fork`, {}), 201)).json.session;
    expect(derived.title).toBe("Why is the sky blue? (fork)");
    await expectStatus(call(s, "PATCH", `/sessions/${sid}`, { title: "x".repeat(200) }), 200);
    const long = (await expectStatus(call(s, "POST", `/sessions/${derived.id}/fork`, {}), 201)).json.session;
    expect(long.title).toBe("Why is the sky blue? (fork) (fork)");
    const capped = (await expectStatus(call(s, "POST", `/sessions/${sid}/fork`, {}), 201)).json.session;
    expect(capped.title).toBe(`${"x".repeat(193)} (fork)`);
    const created = (await allEvents(s)).filter((e) => e.type === "session_created" && e.source_session_id === sid);
    expect(created.map((e) => (e.session as { title?: string }).title)).toEqual([
      undefined,
      "Why is the sky blue? (fork)",
      `${"x".repeat(193)} (fork)`,
    ]);
  });

  it("T5: a title the user gives while the model writes one wins", async () => {
    const s = await start();
    const sid = await newSession(s);
    let titleAsked!: () => void;
    const asked = new Promise<void>((resolve) => (titleAsked = resolve));
    await send(s, sid, "question", "answer", { kind: "hang", onReceived: () => titleAsked() });
    await asked;
    await expectStatus(call(s, "PATCH", `/sessions/${sid}`, { title: "Chosen" }), 200);
    // The model's title arriving now is refused by the same transaction rule the writer uses.
    expect(s.server.runtime.ctx.sessions.titleIfUntitled(sid, "From the model")).toBeUndefined();
    expect(await titleOf(s, sid)).toBe("Chosen");
  });
});
