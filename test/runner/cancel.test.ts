// Cancel and shutdown: a cancelled run ends with request_cancelled then request_completed, keeps what was
// streamed (metadata.interrupted) and answers every persisted tool call; cancel of a finished or unknown
// request is a clear 4xx.
import { expect, it } from "vitest";
import { chunk, dialectStream } from "../../scripts/scripted-backend/index.ts";
import { startTestServer } from "../support/server.ts";
import { controls } from "./fixtures/controls.ts";
import {
  completionBodies,
  contentOfPartials,
  createSession,
  eventsOf,
  messagesOf,
  send,
  shapeOf,
  waitForEvent,
  waitUntil,
  useRunner,
  sendHeldReply,
  STREAMED_PHASE,
  CANCELLED_END,
} from "./helpers.ts";

const runner = useRunner({ plugins: ["./test-tools.ts", "./lifecycle-tools.ts"] });

const cancel = (sid: string, rid: string) =>
  runner.server.request({ method: "POST", url: `/sessions/${sid}/requests/${rid}/cancel`, payload: {} });

it("cancel mid-stream aborts the backend request and keeps the streamed text, marked interrupted", async () => {
  runner.backend.script({
    kind: "stream",
    parts: [
      { data: chunk({ reasoning_content: "hmm " }) },
      { data: chunk({ content: "Once upon" }) },
      { data: chunk({ content: " a time" }) },
    ],
    pauseAfter: 2,
  });
  const sid = await createSession(runner.server);
  const rid = await send(runner.server, sid, { content: "story" });
  await waitUntil(runner.server, rid, (events) => contentOfPartials(events) === "Once upon");
  const res = await cancel(sid, rid);
  expect(res.status).toBe(202);
  const events = await waitForEvent(runner.server, rid);
  expect(shapeOf(events)).toEqual(["request_started", ...STREAMED_PHASE, ...CANCELLED_END]);
  expect((await messagesOf(runner.server, sid))[1]).toEqual({
    role: "assistant",
    content: "Once upon",
    metadata: { reasoning_content: "hmm ", interrupted: "user", interrupted_reason: "cancelled" },
  });
  // The person's Stop, as the event says (issue 20 item 9).
  expect(events.find((e) => e.type === "request_cancelled")).toMatchObject({ reason: "user" });
  // The paused backend stream was abandoned by the client: the rest never arrives.
  expect(contentOfPartials(eventsOf(runner.server, rid))).toBe("Once upon");

  const again = await cancel(sid, rid);
  expect(again.status).toBe(409);
  expect(again.json.error.code).toBe("request_finished");
});

it("cancel before anything streamed stores no assistant message", async () => {
  runner.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "late" }) }], pauseAfter: 0 });
  const sid = await createSession(runner.server);
  const rid = await send(runner.server, sid, { content: "hi" });
  await runner.backend.nextPause();
  expect((await cancel(sid, rid)).status).toBe(202);
  const events = await waitForEvent(runner.server, rid);
  expect(shapeOf(events)).toEqual([
    "request_started",
    "assistant_message:start",
    "assistant_message:end",
    ...CANCELLED_END,
  ]);
  expect((await messagesOf(runner.server, sid)).map((m) => m.role)).toEqual(["user"]);
});

it("cancel during a tool aborts the tool; its call is answered as cancelled and no further phase runs", async () => {
  runner.backend.script(
    dialectStream("openai", {
      tool_calls: [
        { id: "c1", name: "wait_for_cancel", arguments: "{}" },
        { id: "c2", name: "get_weather", arguments: '{"city":"X"}' },
      ],
    }),
  );
  const sid = await createSession(runner.server);
  const rid = await send(runner.server, sid, { content: "wait" });
  await controls.latch("wait_for_cancel").opened;
  expect((await cancel(sid, rid)).status).toBe(202);
  const events = await waitForEvent(runner.server, rid);
  expect(shapeOf(events).slice(-5)).toEqual(["tool_calls", "tool_results", "checkpoint", ...CANCELLED_END]);
  const results = (await messagesOf(runner.server, sid)).slice(2);
  expect(results).toEqual([
    {
      role: "tool",
      content: "The tool call was cancelled before it finished.",
      metadata: { tool_call_id: "c1", tool_name: "wait_for_cancel", interrupted: true },
    },
    {
      role: "tool",
      content: "sunny in X",
      metadata: {
        source: "test",
        tool_call_id: "c2",
        tool_name: "get_weather",
        display: { type: "text", content: "☀ X" },
      },
    },
  ]);
  expect(completionBodies(runner.backend)).toHaveLength(1);
});

it("a tool that ignores its signal cannot publish or notify after request_completed", async () => {
  runner.backend.script(
    dialectStream("openai", { tool_calls: [{ id: "c1", name: "ignore_cancel", arguments: "{}" }] }),
  );
  const sid = await createSession(runner.server);
  const rid = await send(runner.server, sid, { content: "go" });
  await controls.latch("ignore_cancel:started").opened;
  expect((await cancel(sid, rid)).status).toBe(202);
  const ended = await waitForEvent(runner.server, rid);
  const toolRound = ["tool_calls", "tool_partial:start", "tool_partial:end", "tool_results", "checkpoint"];
  expect(shapeOf(ended).slice(-7)).toEqual([...toolRound, ...CANCELLED_END]);
  // The tool goes on after the request ended: it emits a part and tries two notifications.
  controls.latch("ignore_cancel:release").open();
  await controls.latch("ignore_cancel:done").opened;
  runner.server.runtime.ctx.transactor.commitGroup();
  const events = eventsOf(runner.server, rid);
  expect(events.at(-1)!.type).toBe("request_completed");
  expect(events).toHaveLength(ended.length);
  expect(controls.get("ignore_cancel:late_notify")).toBeNull();
  expect(controls.get("ignore_cancel:late_scoped_notify")).toBeNull();
  const all = await runner.server.request({
    method: "GET",
    url: `/sessions/${sid}/notifications?include_terminal=true`,
  });
  expect(all.status).toBe(200);
  expect(JSON.stringify(all.json)).not.toContain("Late");
});

it("cancel of an unknown request is 404, of another session's request 404, of an unknown session 404", async () => {
  runner.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "x" }) }], pauseAfter: 0 });
  const sid = await createSession(runner.server);
  const other = await createSession(runner.server);
  const rid = await send(runner.server, sid, { content: "hi" });
  expect((await cancel(sid, "req_nope")).json.error.code).toBe("request_not_found");
  const wrongSession = await cancel(other, rid);
  expect([wrongSession.status, wrongSession.json.error.code]).toEqual([404, "request_not_found"]);
  expect((await cancel("no-such-session", rid)).json.error.code).toBe("session_not_found");
  (await runner.backend.nextPause()).resume();
  await waitForEvent(runner.server, rid);
});

it("shutdown cancels in-flight runs the same way before the database closes", async () => {
  const { sid, rid } = await sendHeldReply(runner.server, runner.backend, ["Half", " done"], 1);
  await runner.server.runtime.close();
  // A new runtime on the same data dir reads what the closed one committed.
  const again = await startTestServer({}, { dataDir: runner.server.dataDir });
  try {
    const events = eventsOf(again, rid);
    expect(shapeOf(events).slice(-4)).toEqual(["final", "checkpoint", "request_cancelled", "request_completed"]);
    expect((await messagesOf(again, sid))[1]).toMatchObject({ content: "Half", metadata: { interrupted: "shutdown" } });
    expect(events.find((e) => e.type === "request_cancelled")).toMatchObject({ reason: "shutdown" });
  } finally {
    await again.close(true);
  }
});
