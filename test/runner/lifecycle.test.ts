// The send lifecycle over HTTP against the scripted backend: event order, persistence, non-streaming sends,
// failures, one run per session and many sessions at once.
import { describe, expect, it } from "vitest";
import { chunk, completion, dialectStream } from "../../scripts/scripted-backend/index.ts";
import { INTERNAL_CHECKPOINT } from "../../server/events/event-store.ts";
import {
  completionBodies,
  contentOfPartials,
  createSession,
  eventsOf,
  messagesOf,
  send,
  shapeOf,
  waitForEvent,
  useRunner,
  sendHeldReply,
  sendAndWait,
  STREAMED_PHASE,
  WHOLE_PHASE,
} from "./helpers.ts";

const runner = useRunner({ agents: { default: { provider_id: "default", system_prompt: "Be brief." } } });

describe("a plain streamed reply", () => {
  it("publishes request_started, the streamed phase, final and request_completed in order, and persists both messages", async () => {
    runner.backend.script(
      dialectStream("openai", {
        content: "Hello there, friend.",
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      }),
    );
    const { sid, rid, events } = await sendAndWait(runner.server, { content: "hi" });
    expect(shapeOf(events)).toEqual(["request_started", ...STREAMED_PHASE, "request_completed"]);
    expect(events[0]!.stream).toBe(true);
    expect(contentOfPartials(events)).toBe("Hello there, friend.");
    const final = events.find((e) => e.type === "final")!;
    expect(final.messages).toEqual([expect.objectContaining({ role: "assistant", content: "Hello there, friend." })]);
    const messages = await messagesOf(runner.server, sid);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "hi"],
      ["assistant", "Hello there, friend."],
    ]);
    expect(messages[0]!.metadata).toEqual({ request_id: rid });
    expect(messages[1]!.metadata?.usage_total_tokens).toBe(9);
    // The system prompt goes to the provider but is never stored.
    expect(completionBodies(runner.backend)[0]!.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
  });

  it("stores the user message (message_appended + checkpoint) before request_started, in one commit, before answering 202", async () => {
    runner.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "x" }) }], pauseAfter: 0 });
    const sid = await createSession(runner.server);
    const rid = await send(runner.server, sid, { content: "question" });
    // Right after the 202: the user message is in the session and request_started is stored.
    expect((await messagesOf(runner.server, sid)).map((m) => m.content)).toEqual(["question"]);
    const all = runner.server.runtime.ctx.events
      .list({ sinceId: 0, sessionId: sid, limit: 100 })
      .events.map((e) => e.type);
    expect(all.slice(0, 5)).toEqual([
      "session_created",
      "checkpoint",
      "message_appended",
      "checkpoint",
      "request_started",
    ]);
    (await runner.backend.nextPause()).resume();
    await waitForEvent(runner.server, rid);
  });

  it("never stores the internal session_checkpoint, but signals it with the live session after each save", async () => {
    const seen: Array<{ type: string; messages: number }> = [];
    runner.server.runtime.ctx.runner.checkpoints.subscribe((c) =>
      seen.push({ type: c.type, messages: c.session.messages.length }),
    );
    runner.backend.script(dialectStream("openai", { content: "ok" }));
    const sid = await createSession(runner.server);
    await waitForEvent(runner.server, await send(runner.server, sid, { content: "hi" }));
    expect(seen).toEqual([{ type: INTERNAL_CHECKPOINT, messages: 2 }]);
    const stored = runner.server.runtime.ctx.events.list({ sinceId: 0, limit: 1000 }).events;
    expect(stored.some((e) => e.type === INTERNAL_CHECKPOINT)).toBe(false);
  });
});

it("a non-streaming send emits the same lifecycle without partials", async () => {
  runner.backend.script({ kind: "json", body: completion({ content: "whole answer", reasoning: "thinking" }) });
  const { sid, events } = await sendAndWait(runner.server, { content: "hi", stream: false });
  expect(shapeOf(events)).toEqual(["request_started", ...WHOLE_PHASE, "request_completed"]);
  expect(events[0]!.stream).toBe(false);
  expect(completionBodies(runner.backend)[0]!.stream).toBe(false);
  expect((await messagesOf(runner.server, sid))[1]).toMatchObject({
    content: "whole answer",
    metadata: { reasoning_content: "thinking" },
  });
});

it("request_options reach the backend", async () => {
  runner.backend.script(dialectStream("openai", { content: "ok" }));
  const sid = await createSession(runner.server);
  await waitForEvent(
    runner.server,
    await send(runner.server, sid, { content: "hi", request_options: { temperature: 0.2 } }),
  );
  expect((completionBodies(runner.backend)[0] as unknown as Record<string, unknown>).temperature).toBe(0.2);
});

describe("failures", () => {
  it("a backend error before streaming: error with the provider's detail, then request_completed; the session keeps only the user message", async () => {
    runner.backend.script({ kind: "status", status: 500, body: { error: { message: "model exploded" } } });
    const { sid, events } = await sendAndWait(runner.server, { content: "hi" });
    const started = ["request_started", "assistant_message:start", "assistant_message:end"];
    expect(shapeOf(events)).toEqual([...started, "error", "request_completed"]);
    expect(events.find((e) => e.type === "error")!.detail).toContain("model exploded");
    expect((await messagesOf(runner.server, sid)).map((m) => m.role)).toEqual(["user"]);
  });

  it("a stream that breaks mid-way keeps what was shown (interrupted), reports the error, and the session works for the next send", async () => {
    const { sid, rid } = await sendHeldReply(runner.server, runner.backend, ["partial ", "answer"], 2);
    (await runner.backend.nextPause()).destroy();
    const events = await waitForEvent(runner.server, rid);
    expect(shapeOf(events)).toEqual(["request_started", ...STREAMED_PHASE, "error", "request_completed"]);
    expect(events.find((e) => e.type === "error")!.detail).toMatch(/broke mid-way/);
    const messages = await messagesOf(runner.server, sid);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: "partial answer",
      metadata: { interrupted: true, interrupted_reason: "error" },
    });

    runner.backend.script(dialectStream("openai", { content: "second try" }));
    const again = await send(runner.server, sid, { content: "again" });
    expect((await waitForEvent(runner.server, again)).some((e) => e.type === "error")).toBe(false);
    expect(completionBodies(runner.backend)[1]!.messages.slice(1)).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "partial answer" },
      { role: "user", content: "again" },
    ]);
  });
});

describe("concurrency", () => {
  it("refuses a second send to a busy session with 409 request_in_progress, writing nothing", async () => {
    runner.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "slow" }) }], pauseAfter: 0 });
    const sid = await createSession(runner.server);
    const rid = await send(runner.server, sid, { content: "first" });
    const before = runner.server.runtime.ctx.events.latestId;
    const res = await runner.server.request({
      method: "POST",
      url: `/sessions/${sid}/send`,
      payload: { content: "second" },
    });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: "request_in_progress", details: { request_id: rid } });
    expect(runner.server.runtime.ctx.events.latestId).toBe(before);
    (await runner.backend.nextPause()).resume();
    await waitForEvent(runner.server, rid);
    expect((await messagesOf(runner.server, sid)).map((m) => m.content)).toEqual(["first", "slow"]);
  });

  it("runs many sessions at once, each with its own complete event sequence", async () => {
    const count = 12;
    for (let i = 0; i < count; i++)
      runner.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "reply" }) }], pauseAfter: 0 });
    const sessions = await Promise.all(Array.from({ length: count }, () => createSession(runner.server)));
    const requests = await Promise.all(sessions.map((sid, i) => send(runner.server, sid, { content: `q${i}` })));
    // All are in flight together: every stream is paused before any is let go.
    const pauses = await Promise.all(requests.map(() => runner.backend.nextPause()));
    for (const pause of pauses) pause.resume();
    for (const [i, rid] of requests.entries()) {
      const events = await waitForEvent(runner.server, rid);
      expect(events.every((e) => e.session_id === sessions[i])).toBe(true);
      expect(shapeOf(events).at(-1)).toBe("request_completed");
      expect(contentOfPartials(events)).toBe("reply");
    }
  });
});

it("events of one request validate against the wire schemas", async () => {
  runner.backend.script(dialectStream("llamacpp", { content: "a b c", reasoning: "why" }));
  const sid = await createSession(runner.server);
  const events = eventsOf(runner.server, await send(runner.server, sid, { content: "hi" }));
  expect(events.length).toBeGreaterThan(0);
});
