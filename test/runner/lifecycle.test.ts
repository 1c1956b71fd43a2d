// The send lifecycle over HTTP against the scripted backend: event order, persistence, non-streaming sends,
// failures, one run per session and many sessions at once.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  chunk,
  completion,
  dialectStream,
  startScriptedBackend,
  type ScriptedBackend,
} from "../../scripts/scripted-backend/index.ts";
import { INTERNAL_CHECKPOINT } from "../../server/events/event-store.ts";
import {
  completionBodies,
  contentOfPartials,
  createSession,
  eventsOf,
  messagesOf,
  send,
  shapeOf,
  startRunnerServer,
  waitForEvent,
  waitUntil,
  type RunnerServer,
} from "./helpers.ts";

let backend: ScriptedBackend;
let server: RunnerServer;
beforeEach(async () => {
  backend = await startScriptedBackend();
  server = await startRunnerServer(backend, {
    agents: { default: { provider_id: "default", system_prompt: "Be brief." } },
  });
});
afterEach(async () => {
  await server.close();
  await backend.close();
});

describe("a plain streamed reply", () => {
  it("publishes request_started, the streamed phase, final and request_completed in order, and persists both messages", async () => {
    backend.script(
      dialectStream("openai", {
        content: "Hello there, friend.",
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      }),
    );
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "hi" });
    const events = await waitForEvent(server, rid);
    expect(shapeOf(events)).toEqual([
      "request_started",
      "assistant_message:start",
      "partial*",
      "assistant_message:end",
      "final",
      "checkpoint",
      "request_completed",
    ]);
    expect(events[0]!.stream).toBe(true);
    expect(contentOfPartials(events)).toBe("Hello there, friend.");
    const final = events.find((e) => e.type === "final")!;
    expect(final.messages).toEqual([expect.objectContaining({ role: "assistant", content: "Hello there, friend." })]);
    const messages = await messagesOf(server, sid);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "hi"],
      ["assistant", "Hello there, friend."],
    ]);
    expect(messages[0]!.metadata).toEqual({ request_id: rid });
    expect(messages[1]!.metadata?.usage_total_tokens).toBe(9);
    // The system prompt goes to the provider but is never stored.
    expect(completionBodies(backend)[0]!.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ]);
  });

  it("stores the user message (message_appended + checkpoint) before request_started, in one commit, before answering 202", async () => {
    backend.script({ kind: "stream", parts: [{ data: chunk({ content: "x" }) }], pauseAfter: 0 });
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "question" });
    // Right after the 202: the user message is in the session and request_started is stored.
    expect((await messagesOf(server, sid)).map((m) => m.content)).toEqual(["question"]);
    const all = server.runtime.ctx.events.list({ sinceId: 0, sessionId: sid, limit: 100 }).events.map((e) => e.type);
    expect(all.slice(0, 5)).toEqual([
      "session_created",
      "checkpoint",
      "message_appended",
      "checkpoint",
      "request_started",
    ]);
    (await backend.nextPause()).resume();
    await waitForEvent(server, rid);
  });

  it("never stores the internal session_checkpoint, but signals it with the live session after each save", async () => {
    const seen: Array<{ type: string; messages: number }> = [];
    server.runtime.ctx.runner.checkpoints.subscribe((c) =>
      seen.push({ type: c.type, messages: c.session.messages.length }),
    );
    backend.script(dialectStream("openai", { content: "ok" }));
    const sid = await createSession(server);
    await waitForEvent(server, await send(server, sid, { content: "hi" }));
    expect(seen).toEqual([{ type: INTERNAL_CHECKPOINT, messages: 2 }]);
    const stored = server.runtime.ctx.events.list({ sinceId: 0, limit: 1000 }).events;
    expect(stored.some((e) => e.type === INTERNAL_CHECKPOINT)).toBe(false);
  });
});

it("a non-streaming send emits the same lifecycle without partials", async () => {
  backend.script({ kind: "json", body: completion({ content: "whole answer", reasoning: "thinking" }) });
  const sid = await createSession(server);
  const rid = await send(server, sid, { content: "hi", stream: false });
  const events = await waitForEvent(server, rid);
  expect(shapeOf(events)).toEqual([
    "request_started",
    "assistant_message:start",
    "assistant_message:end",
    "final",
    "checkpoint",
    "request_completed",
  ]);
  expect(events[0]!.stream).toBe(false);
  expect(completionBodies(backend)[0]!.stream).toBe(false);
  expect((await messagesOf(server, sid))[1]).toMatchObject({
    content: "whole answer",
    metadata: { reasoning_content: "thinking" },
  });
});

it("request_options reach the backend", async () => {
  backend.script(dialectStream("openai", { content: "ok" }));
  const sid = await createSession(server);
  await waitForEvent(server, await send(server, sid, { content: "hi", request_options: { temperature: 0.2 } }));
  expect((completionBodies(backend)[0] as unknown as Record<string, unknown>).temperature).toBe(0.2);
});

describe("failures", () => {
  it("a backend error before streaming: error with the provider's detail, then request_completed; the session keeps only the user message", async () => {
    backend.script({ kind: "status", status: 500, body: { error: { message: "model exploded" } } });
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "hi" });
    const events = await waitForEvent(server, rid);
    expect(shapeOf(events)).toEqual([
      "request_started",
      "assistant_message:start",
      "assistant_message:end",
      "error",
      "request_completed",
    ]);
    expect(events.find((e) => e.type === "error")!.detail).toContain("model exploded");
    expect((await messagesOf(server, sid)).map((m) => m.role)).toEqual(["user"]);
  });

  it("a stream that breaks mid-way keeps what was shown (interrupted), reports the error, and the session works for the next send", async () => {
    backend.script({
      kind: "stream",
      parts: [{ data: chunk({ content: "partial " }) }, { data: chunk({ content: "answer" }) }],
      pauseAfter: 2,
    });
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "hi" });
    await waitUntil(server, rid, (events) => contentOfPartials(events) === "partial answer");
    (await backend.nextPause()).destroy();
    const events = await waitForEvent(server, rid);
    expect(shapeOf(events)).toEqual([
      "request_started",
      "assistant_message:start",
      "partial*",
      "assistant_message:end",
      "final",
      "checkpoint",
      "error",
      "request_completed",
    ]);
    expect(events.find((e) => e.type === "error")!.detail).toMatch(/broke mid-way/);
    const messages = await messagesOf(server, sid);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: "partial answer",
      metadata: { interrupted: true, interrupted_reason: "error" },
    });

    backend.script(dialectStream("openai", { content: "second try" }));
    const again = await send(server, sid, { content: "again" });
    expect((await waitForEvent(server, again)).some((e) => e.type === "error")).toBe(false);
    expect(completionBodies(backend)[1]!.messages.slice(1)).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "partial answer" },
      { role: "user", content: "again" },
    ]);
  });
});

describe("concurrency", () => {
  it("refuses a second send to a busy session with 409 request_in_progress, writing nothing", async () => {
    backend.script({ kind: "stream", parts: [{ data: chunk({ content: "slow" }) }], pauseAfter: 0 });
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "first" });
    const before = server.runtime.ctx.events.latestId;
    const res = await server.request({ method: "POST", url: `/sessions/${sid}/send`, payload: { content: "second" } });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: "request_in_progress", details: { request_id: rid } });
    expect(server.runtime.ctx.events.latestId).toBe(before);
    (await backend.nextPause()).resume();
    await waitForEvent(server, rid);
    expect((await messagesOf(server, sid)).map((m) => m.content)).toEqual(["first", "slow"]);
  });

  it("runs many sessions at once, each with its own complete event sequence", async () => {
    const count = 12;
    for (let i = 0; i < count; i++)
      backend.script({ kind: "stream", parts: [{ data: chunk({ content: "reply" }) }], pauseAfter: 0 });
    const sessions = await Promise.all(Array.from({ length: count }, () => createSession(server)));
    const requests = await Promise.all(sessions.map((sid, i) => send(server, sid, { content: `q${i}` })));
    // All are in flight together: every stream is paused before any is let go.
    const pauses = await Promise.all(requests.map(() => backend.nextPause()));
    for (const pause of pauses) pause.resume();
    for (const [i, rid] of requests.entries()) {
      const events = await waitForEvent(server, rid);
      expect(events.every((e) => e.session_id === sessions[i])).toBe(true);
      expect(shapeOf(events).at(-1)).toBe("request_completed");
      expect(contentOfPartials(events)).toBe("reply");
    }
  });
});

it("events of one request validate against the wire schemas", async () => {
  backend.script(dialectStream("llamacpp", { content: "a b c", reasoning: "why" }));
  const sid = await createSession(server);
  const events = eventsOf(server, await send(server, sid, { content: "hi" }));
  expect(events.length).toBeGreaterThan(0);
});
