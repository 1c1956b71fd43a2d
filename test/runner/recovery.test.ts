// Crash recovery (docs/runner.md "Crash recovery", R16): a request cut off by a crash (the database closed
// without the graceful shutdown path) gets `error` and `request_completed` when the next runtime starts on the
// same data dir, once; its request-scoped notifications expire; a tool round it left open is answered.
import { expect, it } from "vitest";
import { chunk, dialectStream } from "../../scripts/scripted-backend/index.ts";
import { migrations } from "../../server/db/migrations.ts";
import { SERVER_STOPPED_DETAIL } from "../../server/runner/recovery.ts";
import { controls } from "./fixtures/controls.ts";
import {
  completionBodies,
  createSession,
  eventsOf,
  messagesOf,
  send,
  shapeOf,
  waitForEvent,
  type RunnerServer,
  useRunner,
  sendHeldReply,
  STREAMED_PHASE,
} from "./helpers.ts";

const runner = useRunner();
const config = { plugins: ["./test-tools.ts", "./lifecycle-tools.ts"] };

/** `dataDir` restarts on an earlier server's data; every server is closed (and its data removed) after the test. */
const start = (dataDir?: string): Promise<RunnerServer> => runner.start(config, {}, dataDir);

/** Kills the server's database the way a crash would: nothing of the graceful shutdown path gets to write. */
async function crash(server: RunnerServer): Promise<void> {
  server.runtime.ctx.db.close();
  // Releases the dead runtime's timers, worker and sockets; with the database closed it cannot write anything.
  await server.runtime.close();
}

it("a request cut off mid-stream keeps its shown text and gets error + request_completed at the next start, once; the session stays usable", async () => {
  const first = await start();
  const { sid, rid } = await sendHeldReply(first, runner.backend, ["Half", " done"], 1);
  await crash(first);

  const second = await start(first.dataDir);
  expect(second.runtime.ctx.runner.recovered).toEqual([rid]);
  const events = eventsOf(second, rid);
  expect(shapeOf(events)).toEqual(["request_started", ...STREAMED_PHASE, "error", "request_completed"]);
  expect(events.find((e) => e.type === "error")).toMatchObject({ detail: SERVER_STOPPED_DETAIL, reason: "crash" });
  // What the cut phase had shown is kept, marked interrupted by the crash (issue 20 item 9).
  expect(await messagesOf(second, sid)).toEqual([
    expect.objectContaining({ role: "user" }),
    { role: "assistant", content: "Half", metadata: { interrupted: "crash", interrupted_reason: "server_stopped" } },
  ]);
  // The session is idle again and the next request runs.
  runner.backend.script(dialectStream("openai", { content: "fine" }));
  const next = await send(second, sid, { content: "again" });
  expect(shapeOf(await waitForEvent(second, next)).at(-1)).toBe("request_completed");
  await second.runtime.close();

  const third = await start(first.dataDir);
  expect(third.runtime.ctx.runner.recovered).toEqual([]);
  expect(eventsOf(third, rid)).toEqual(events);
  expect(eventsOf(third, rid).filter((e) => e.type === "request_completed")).toHaveLength(1);
});

it("a request cut off during a tool round: its calls are answered, its until_request_complete notification expires before request_completed", async () => {
  const first = await start();
  runner.backend.script(
    dialectStream("openai", { tool_calls: [{ id: "c1", name: "notify_then_wait", arguments: "{}" }] }),
  );
  const sid = await createSession(first);
  const rid = await send(first, sid, { content: "go" });
  await controls.latch("notify_then_wait").opened;
  await crash(first);

  const second = await start(first.dataDir);
  const events = eventsOf(second, rid);
  expect(shapeOf(events).slice(-5)).toEqual(["tool_calls", "tool_results", "checkpoint", "error", "request_completed"]);
  const messages = await messagesOf(second, sid);
  expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  expect(messages[2]).toMatchObject({
    role: "tool",
    metadata: {
      tool_call_id: "c1",
      tool_name: "notify_then_wait",
      interrupted: true,
      interrupted_reason: "server_stopped",
    },
  });

  const all = await second.request({ method: "GET", url: `/sessions/${sid}/notifications?include_terminal=true` });
  expect((all.json as Array<{ title: string }>).find((n) => n.title === "Scoped progress")).toMatchObject({
    status: "expired",
    request_id: rid,
  });
  const types = second.runtime.ctx.events
    .list({ sinceId: 0, sessionId: sid, limit: 100_000 })
    .events.map((e) => e.type);
  expect(types.indexOf("error")).toBeLessThan(types.indexOf("session_notification_expired"));
  expect(types.indexOf("session_notification_expired")).toBeLessThan(types.lastIndexOf("request_completed"));

  // The next request sends a history the backend accepts: the tool call has its result.
  runner.backend.script(dialectStream("openai", { content: "ok" }));
  await waitForEvent(second, await send(second, sid, { content: "again" }));
  expect(
    completionBodies(runner.backend)
      .at(-1)!
      .messages.map((m) => m.role),
  ).toEqual(["user", "assistant", "tool", "user"]);
  await second.runtime.close();

  const third = await start(first.dataDir);
  expect(third.runtime.ctx.runner.recovered).toEqual([]);
  expect(eventsOf(third, rid)).toEqual(events);
});

it("a graceful shutdown leaves nothing to recover", async () => {
  const first = await start();
  runner.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "x" }) }], pauseAfter: 0 });
  const sid = await createSession(first);
  const rid = await send(first, sid, { content: "hi" });
  await runner.backend.nextPause();
  await first.runtime.close();
  const second = await start(first.dataDir);
  expect(second.runtime.ctx.runner.recovered).toEqual([]);
  expect(shapeOf(eventsOf(second, rid)).slice(-2)).toEqual(["request_cancelled", "request_completed"]);
});

it("the migration finds requests an older log left unfinished (request_started without request_completed)", async () => {
  const first = await start();
  const sid = await createSession(first);
  const { ctx } = first.runtime;
  ctx.transactor.run(
    () => void ctx.events.publish({ type: "request_started", session_id: sid, request_id: "req_old", stream: true }),
  );
  ctx.transactor.run(
    () => void ctx.events.publish({ type: "request_started", session_id: sid, request_id: "req_done", stream: true }),
  );
  ctx.transactor.run(
    () => void ctx.events.publish({ type: "request_completed", session_id: sid, request_id: "req_done" }),
  );
  // The database as the version before the active_requests migration left it, then that migration run on it.
  // (Rewinding user_version instead would re-run the later migrations too, which are not written to run twice.)
  ctx.db.exec("DROP TABLE active_requests");
  ctx.db.exec(migrations.find((sql) => sql.includes("CREATE TABLE active_requests"))!);
  await crash(first);

  const second = await start(first.dataDir);
  expect(second.runtime.ctx.runner.recovered).toEqual(["req_old"]);
  expect(shapeOf(eventsOf(second, "req_old"))).toEqual(["request_started", "error", "request_completed"]);
  expect(shapeOf(eventsOf(second, "req_done"))).toEqual(["request_started", "request_completed"]);
});
