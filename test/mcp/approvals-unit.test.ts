// The approvals on their own (server/mcp/approvals.ts) over the real notification service, sessions and event log on
// a SQLite file (built here as the runtime builds them, without its HTTP app) and a hand-moved clock, without an MCP
// server or a model: the interaction a call asks with, each way its wait ends (an answer, the timeout,
// the request's end, a signal already aborted) with the record's move and the tool_approval announcement, and the
// resolve after the call ran (docs/tools.md "Approvals"). Fast on purpose: mutation testing runs these for every
// mutant of the file (docs/testing.md "Mutation score"); test/mcp/approvals.test.ts drives the same through a run.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../server/clock.ts";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { Transactor } from "../../server/db/transactor.ts";
import { EventStore } from "../../server/events/event-store.ts";
import type { ParsedMoveInput } from "../../server/notifications/input.ts";
import { NotificationService } from "../../server/notifications/notification-service.ts";
import { SqliteNotificationStore } from "../../server/notifications/sqlite-store.ts";
import { Approvals, type ApprovalRequest } from "../../server/mcp/approvals.ts";
import { SessionService } from "../../server/sessions/session-service.ts";
import { SessionStore } from "../../server/sessions/session-store.ts";
import { ManualClock } from "../bridge/manual-clock.ts";
import { tempDir } from "../support/temp-dir.ts";

// Not the test server: importing the runtime and building its app cost seconds on each of the file's runs, and
// mutation testing runs the file once per mutant (docs/testing.md "Mutation score").
let dir: string;
let db: Db;
let store: { events: EventStore; notifications: NotificationService };
let sessionId: string;
beforeAll(() => {
  dir = tempDir();
  db = openDatabase(join(dir, "server.sqlite"));
  const transactor = new Transactor(db);
  const events = new EventStore(db, transactor);
  const sessions = new SessionService(transactor, new SessionStore(db, systemClock.now), events, () => ["default"]);
  const notifications = new NotificationService({
    store: new SqliteNotificationStore(db, transactor),
    sessions,
    transactor,
    events,
    clock: systemClock,
    log: { warn: () => undefined },
    historyLimit: 1000,
    ownerEpoch: "epoch_test",
  });
  store = { events, notifications };
  sessionId = sessions.create().id;
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
// Every wait ends with its test, even one whose assertion failed midway (a mutant's run): no ask is left pending for
// the server's close to wait on.
const controllers: AbortController[] = [];
afterEach(() => {
  for (const controller of controllers.splice(0)) controller.abort();
});

let requests = 0;
function setUp(failingEvents = false) {
  const clock = new ManualClock();
  const announced: Array<Record<string, unknown>> = [];
  const events = {
    publish: (event: Record<string, unknown>) => {
      if (failingEvents) throw new Error("the log is away");
      announced.push(event);
      return store.events.publish(event as never);
    },
  };
  const approvals = new Approvals({ notifications: store.notifications, events: events as never, clock });
  const controller = new AbortController();
  controllers.push(controller);
  const request: ApprovalRequest = {
    sessionId,
    requestId: `req_${++requests}`,
    toolCallId: "call_1",
    callIndex: 2,
    name: "mcp__fs__write_file",
    server: "fs",
    tool: "write_file",
    args: { path: "notes.txt", content: "milk" },
    timeoutMs: 5000,
    signal: controller.signal,
  };
  const states = () => announced.map((event) => event.state);
  const scope = () => store.notifications.session(sessionId);
  return { clock, approvals, controller, request, announced, states, scope };
}

/** setUp with one approval asked: `asked` resolves with its outcome, `id` names its record. */
function asking() {
  const set = setUp();
  const asked = set.approvals.ask(set.request);
  return { ...set, asked, id: set.announced[0]!.notification_id as string };
}

/** What the respond route does before it hands the answer over: the record moves to responded. */
function respond(scope: ReturnType<ReturnType<typeof setUp>["scope"]>, id: string) {
  const record = scope.get(id)!;
  scope.move({ key: record.key, detail: {} } as ParsedMoveInput, "respond", record.source.plugin);
}

describe("an approval", () => {
  it("asks with a modal interaction naming the call, announced as waiting", async () => {
    const { approvals, request, announced, scope } = setUp();
    const asked = approvals.ask(request);
    const [waiting] = announced;
    expect(waiting).toEqual({
      type: "tool_approval",
      session_id: sessionId,
      request_id: request.requestId,
      tool_call_id: "call_1",
      tool_name: "mcp__fs__write_file",
      notification_id: expect.any(String),
      state: "waiting",
    });
    const id = waiting!.notification_id as string;
    expect(approvals.isWaiting(id)).toBe(true);
    expect(scope().get(id)).toMatchObject({
      key: `approval:${request.requestId}:2`,
      kind: "interaction",
      severity: "warning",
      status: "pending_response",
      title: "Approve mcp__fs__write_file",
      body: JSON.stringify(request.args, null, 2),
      display: {
        presentation: "modal",
        approval: {
          server: "fs",
          tool: "write_file",
          name: "mcp__fs__write_file",
          tool_call_id: "call_1",
          arguments: request.args,
        },
      },
      retention: { policy: "until_request_complete" },
      request_id: request.requestId,
      source: { plugin: "mcp:fs" },
    });
    respond(scope(), id);
    expect(approvals.answer(id, { response: "deny", message: "not now" })).toBe(true);
    const { outcome, record } = await asked;
    expect(outcome).toEqual({ response: "deny", message: "not now" });
    expect(record.id).toBe(id);
  });

  it("answered approve wakes the run once: a second answer finds nobody waiting", async () => {
    const { approvals, states, scope, asked, id } = asking();
    respond(scope(), id);
    expect(approvals.answer(id, { response: "approve" })).toBe(true);
    expect(approvals.isWaiting(id)).toBe(false);
    expect(approvals.answer(id, { response: "deny" })).toBe(false);
    expect(approvals.answer("ntf_unknown", { response: "approve" })).toBe(false);
    expect((await asked).outcome).toEqual({ response: "approve" });
    expect(states()).toEqual(["waiting", "approved"]);
  });

  it("expires at its timeout and not before: the record expired for approval_timeout", async () => {
    const { clock, approvals, states, scope, asked, id } = asking();
    clock.advance(4999);
    await Promise.resolve();
    expect(approvals.isWaiting(id)).toBe(true);
    clock.advance(1);
    expect((await asked).outcome).toEqual({ response: "expired" });
    expect(states()).toEqual(["waiting", "expired"]);
    expect(approvals.isWaiting(id)).toBe(false);
    expect(scope().get(id)).toMatchObject({ status: "expired", expiration: { reason: "approval_timeout" } });
    expect(clock.sleepingFor(5000)).toBe(0);
  });

  it("ends cancelled when its request is cancelled: the record cancelled for request_cancelled", async () => {
    const { clock, controller, states, scope, asked, id } = asking();
    controller.abort();
    expect((await asked).outcome).toEqual({ response: "cancelled" });
    expect(states()).toEqual(["waiting", "cancelled"]);
    expect(scope().get(id)).toMatchObject({ status: "cancelled", resolution: { reason: "request_cancelled" } });
    expect(clock.sleepingFor(5000)).toBe(0);
  });

  it("answered leaves no timer behind, and a later abort changes nothing", async () => {
    const { clock, approvals, controller, states, scope, asked, id } = asking();
    respond(scope(), id);
    approvals.answer(id, { response: "approve" });
    await asked;
    expect(clock.sleepingFor(5000)).toBe(0);
    controller.abort();
    clock.advance(5000);
    expect(states()).toEqual(["waiting", "approved"]);
    expect(scope().get(id)?.status).toBe("responded");
  });

  it("of a request already cancelled ends at once", async () => {
    const { approvals, controller, request, states } = setUp();
    controller.abort();
    expect((await approvals.ask(request)).outcome).toEqual({ response: "cancelled" });
    expect(states()).toEqual(["waiting", "cancelled"]);
  });

  it("with huge arguments cuts the body at 16 KiB and leaves them out of the card", async () => {
    const { approvals, controller, request, announced, scope } = setUp();
    const args = { content: "x".repeat(20_000) };
    const asked = approvals.ask({ ...request, args });
    const record = scope().get(announced[0]!.notification_id as string)!;
    const text = JSON.stringify(args, null, 2);
    expect(record.body).toBe(`${text.slice(0, 16 * 1024)}\n… (${text.length - 16 * 1024} more characters)`);
    expect((record.display as any).approval).not.toHaveProperty("arguments");
    controller.abort();
    await asked;
  });

  it("with arguments of exactly 16 KiB keeps them whole", async () => {
    const { approvals, controller, request, announced, scope } = setUp();
    const args = { c: "y".repeat(16 * 1024 - 8) }; // {"c":"…"} is 16 KiB exactly
    expect(JSON.stringify(args)).toHaveLength(16 * 1024);
    const asked = approvals.ask({ ...request, args });
    const record = scope().get(announced[0]!.notification_id as string)!;
    expect((record.display as any).approval.arguments).toEqual(args);
    expect(record.body).toBe(JSON.stringify(args, null, 2).slice(0, 16 * 1024) + record.body!.slice(16 * 1024));
    controller.abort();
    await asked;
  });

  it("whose arguments print as exactly 16 KiB shows them whole in the body", async () => {
    const { approvals, controller, request, announced, scope } = setUp();
    const args = { c: "z".repeat(16 * 1024 - JSON.stringify({ c: "" }, null, 2).length) };
    const text = JSON.stringify(args, null, 2);
    expect(text).toHaveLength(16 * 1024);
    const asked = approvals.ask({ ...request, args });
    expect(scope().get(announced[0]!.notification_id as string)!.body).toBe(text);
    controller.abort();
    await asked;
  });

  it("is resolved after the call ran; resolving one already ended or of a deleted session does not throw", async () => {
    const { approvals, scope, asked, id } = asking();
    respond(scope(), id);
    approvals.answer(id, { response: "approve" });
    const { record } = await asked;
    approvals.resolve(sessionId, record, { ran: "yes" });
    expect(scope().get(id)).toMatchObject({ status: "resolved", resolution: { ran: "yes" } });
    expect(() => approvals.resolve(sessionId, record, {})).not.toThrow();
    expect(() => approvals.resolve("ses_unknown", record, {})).not.toThrow();
  });

  it("still waits and ends when announcing fails (the record is the authority)", async () => {
    const { clock, approvals, request, scope } = setUp(true);
    const asked = approvals.ask(request);
    clock.advance(5000);
    const { outcome, record } = await asked;
    expect(outcome).toEqual({ response: "expired" });
    expect(scope().get(record.id)?.status).toBe("expired");
  });

  it("cancelled after its record was answered elsewhere keeps the record's state", async () => {
    const { controller, scope, asked, id } = asking();
    respond(scope(), id);
    controller.abort();
    expect((await asked).outcome).toEqual({ response: "cancelled" });
    expect(scope().get(id)?.status).toBe("responded");
  });
});
