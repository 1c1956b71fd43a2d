// The chat's transcript reducer (app/src/chat/transcript.ts) on event sequences the runner publishes
// (docs/runner.md): streaming, recovery and retry markers, tool rounds, errors and cancels.
import { describe, expect, it } from "vitest";
import type { AnyEvent } from "../../client/index.ts";
import { applyEvent, emptyTranscript, type Transcript } from "../../app/src/chat/transcript.ts";

let id = 0;
const ev = (type: string, fields: Record<string, unknown> = {}): AnyEvent =>
  ({ event_id: String(++id).padStart(20, "0"), type, session_id: "s1", request_id: "r1", ...fields }) as AnyEvent;
const partial = (content: string, metadata?: Record<string, unknown>) =>
  ev("partial", { message: { role: "assistant", content, ...(metadata ? { metadata } : {}) } });
const session = {
  id: "s1",
  agent_id: "default",
  version: 2,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
  messages: [],
  metadata: {},
};
const run = (events: AnyEvent[], start: Transcript = emptyTranscript()) => events.reduce(applyEvent, start);

describe("transcript reducer", () => {
  it("streams text and reasoning into the live reply, then final moves the message in and completion ends it (T1)", () => {
    const streaming = run([
      ev("request_started", { stream: true }),
      ev("assistant_message", { phase: "start" }),
      partial("", { reasoning: "think " }),
      partial("Hel"),
      partial("lo"),
    ]);
    expect(streaming.live).toMatchObject({ content: "Hello", reasoning: "think " });
    const done = run(
      [ev("final", { messages: [{ role: "assistant", content: "Hello" }] }), ev("request_completed")],
      streaming,
    );
    expect(done.messages).toEqual([{ role: "assistant", content: "Hello" }]);
    expect(done.live).toBeUndefined();
  });

  it("drops what the phase showed at a recovery marker; the replayed partials are not doubled (T2)", () => {
    const state = run([
      ev("request_started", { stream: true }),
      partial("One two"),
      partial("", { recovery: { attempt: 1, restart: true } }),
      partial("One two three"),
    ]);
    expect(state.live?.content).toBe("One two three");
  });

  it("shows a retry marker, names the running tools, and records errors and cancels where the request ended (T3)", () => {
    const retrying = run([
      ev("request_started", { stream: true }),
      partial("", { retry: { attempt: 2, reason: "429", delay_ms: 3000 } }),
    ]);
    expect(retrying.live?.retry).toEqual({ attempt: 2, delay_ms: 3000 });
    const tools = run(
      [ev("tool_calls", { tool_calls: [{ id: "c1", function: { name: "get_weather", arguments: "{}" } }] })],
      retrying,
    );
    expect(tools.live?.tools).toEqual(["get_weather"]);
    const failed = run(
      [
        ev("tool_results", { messages: [{ role: "tool", content: "x" }] }),
        ev("error", { detail: "backend down" }),
        ev("request_completed"),
      ],
      tools,
    );
    expect(failed.notes).toEqual([
      { request_id: "r1", kind: "error", detail: "backend down", reason: "unknown", position: 1 },
    ]);
    expect(failed.live).toBeUndefined();
  });

  it("edits and deletes messages by index (T4)", () => {
    const start = emptyTranscript([
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c" },
    ]);
    const state = run(
      [ev("message_modified", { index: 0, content: "A", session }), ev("messages_deleted", { indices: [1], session })],
      start,
    );
    expect(state.messages.map((m) => m.content)).toEqual(["A", "c"]);
  });

  it("says why a request ended: a Stop, a shutdown, a crash; a reply kept unfinished replaces the live text (T5)", () => {
    const started = run([ev("request_started", { stream: true }), partial("Half a rep")]);
    expect(run([ev("request_cancelled", { reason: "user" })], started).notes[0]?.reason).toBe("user");
    expect(run([ev("request_cancelled", { reason: "shutdown" })], started).notes[0]?.reason).toBe("shutdown");
    expect(run([ev("request_cancelled")], started).notes[0]?.reason).toBe("unknown");
    const kept = { role: "assistant", content: "Half a rep", metadata: { interrupted: "crash" } };
    const crashed = run(
      [
        ev("message_appended", { ...kept, message: kept, session }),
        ev("error", { detail: "The server restarted before this reply finished.", reason: "crash" }),
      ],
      started,
    );
    expect(crashed.messages).toEqual([kept]);
    expect(crashed.live?.content).toBe("");
    expect(crashed.notes[0]).toMatchObject({ kind: "error", reason: "crash" });
  });
});
