// Retention boundaries (request completion, server restart, ttl) and history pruning.
import { afterEach, describe, expect, it } from "vitest";
import { expireForCompletedRequest } from "../../server/notifications/retention.ts";
import { tempDir } from "../support/server.ts";
import { basic, startHarness, type NotificationHarness } from "./helpers.ts";

let harnesses: NotificationHarness[] = [];
async function start(...args: Parameters<typeof startHarness>) {
  const h = await startHarness(...args);
  harnesses.push(h);
  return h;
}
afterEach(async () => {
  for (const h of harnesses) await h.server.close();
  harnesses = [];
});

const sessionIds = (h: NotificationHarness, sessionId: string) =>
  h.api
    .session(sessionId)
    .list()
    .map((r) => r.id);

const untilRequest = (request_id: string) => ({ retention: { policy: "until_request_complete" as const }, request_id });

describe("until_request_complete", () => {
  it("expires the request's pending records in both scopes, once, and a second call finds nothing left", async () => {
    const h = await start();
    const sessionId = await h.newSession();
    const app = h.api.application.create({ key: "a", ...basic, ...untilRequest("req-1") });
    const sess = h.api.session(sessionId).create({ key: "s", ...basic, ...untilRequest("req-1") });
    const other = h.api.session(sessionId).create({ key: "o", ...basic, ...untilRequest("req-2") });
    const kept = h.api.session(sessionId).create({ key: "k", ...basic, request_id: "req-1" });
    const done = h.api.application.create({ key: "d", ...basic, ...untilRequest("req-1") });
    h.api.application.resolve({ key: "d" });

    const expired = expireForCompletedRequest(h.server.runtime.ctx, "req-1", sessionId);
    expect(expired.map((r) => r.id).sort()).toEqual([app.id, sess.id].sort());
    h.server.runtime.ctx.events.publish({ type: "request_completed", session_id: sessionId, request_id: "req-1" });
    expect(expireForCompletedRequest(h.server.runtime.ctx, "req-1")).toEqual([]);

    expect(h.api.application.list({ include_terminal: true }).find((r) => r.id === app.id)).toMatchObject({
      status: "expired",
      revision: 2,
    });
    expect(h.api.application.list({ include_terminal: true }).find((r) => r.id === done.id)?.status).toBe("resolved");
    const session = h.api.session(sessionId).list({ include_terminal: true });
    expect(session.find((r) => r.id === sess.id)).toMatchObject({
      status: "expired",
      revision: 2,
      expiration: { reason: "request_completed" },
    });
    expect(session.find((r) => r.id === other.id)?.status).toBe("pending");
    expect(session.find((r) => r.id === kept.id)?.status).toBe("pending");
    const expiredEvents = (await h.notificationEvents()).filter((e) => e.type.endsWith("_expired"));
    expect(expiredEvents.map((e) => e.notification_id).sort()).toEqual([app.id, sess.id].sort());
  });

  it("finds the session of a request from the log when the caller does not name it", async () => {
    const h = await start();
    const sessionId = await h.newSession();
    const { ctx } = h.server.runtime;
    ctx.events.publish({ type: "request_started", session_id: sessionId, request_id: "req-5", stream: true });
    const sess = h.api.session(sessionId).create({ key: "s", ...basic, ...untilRequest("req-5") });
    expect(expireForCompletedRequest(ctx, "req-5").map((r) => r.id)).toEqual([sess.id]);
  });
});

describe("until_server_restart", () => {
  it("a restart with a new owner epoch expires what is still pending; the same epoch (application replacement) keeps it", async () => {
    const dataDir = tempDir();
    const restart = { retention: { policy: "until_server_restart" as const } };
    const first = await start({}, { dataDir, ownerEpoch: "epoch-1" });
    const sessionId = await first.newSession();
    const app = first.api.application.create({ key: "a", ...basic, ...restart });
    const sess = first.api.session(sessionId).create({ key: "s", ...basic, ...restart });
    const resolved = first.api.application.create({ key: "r", ...basic, ...restart });
    first.api.application.resolve({ key: "r" });
    expect(app.retention).toEqual({ version: 1, policy: "until_server_restart", owner_epoch: "epoch-1" });
    await first.server.close(true);

    const replaced = await start({}, { dataDir, ownerEpoch: "epoch-1" });
    expect(replaced.api.application.list().map((r) => r.id)).toEqual([app.id]);
    expect(sessionIds(replaced, sessionId)).toEqual([sess.id]);
    await replaced.server.close(true);

    const restarted = await start({}, { dataDir, ownerEpoch: "epoch-2" });
    expect(restarted.api.application.list()).toEqual([]);
    expect(restarted.api.session(sessionId).list()).toEqual([]);
    const history = restarted.api.application.history();
    expect(history.find((r) => r.id === app.id)).toMatchObject({
      status: "expired",
      revision: 2,
      expiration: { reason: "server_restart" },
    });
    expect(history.find((r) => r.id === resolved.id)).toMatchObject({ status: "resolved", revision: 2 });
    expect(restarted.api.session(sessionId).history()[0]).toMatchObject({ id: sess.id, status: "expired" });
  });

  it("a start reads only the chats whose own fields mention the policy, never every chat's messages", async () => {
    const first = await start({}, { dataDir: tempDir(), ownerEpoch: "epoch-1" });
    const { sessions } = first.server.runtime.ctx;
    const [scoped, talked, gone] = [await first.newSession(), await first.newSession(), await first.newSession()];
    for (const id of [scoped, gone])
      first.api.session(id).create({ key: "s", ...basic, retention: { policy: "until_server_restart" } });
    sessions.append(talked, { role: "user", content: "what does until_server_restart mean?" });
    sessions.delete(gone);
    expect(sessions.mentioning("until_server_restart")).toEqual([scoped]);
    await first.server.close(true);
  });

  it("application records survive a restart (durable store)", async () => {
    const dataDir = tempDir();
    const first = await start({}, { dataDir });
    const app = first.api.application.create({ key: "a", ...basic });
    await first.server.close(true);
    const second = await start({}, { dataDir, ownerEpoch: "another" });
    expect(second.api.application.list()).toEqual([app]);
  });
});

describe("ttl", () => {
  it("is a frontend rule: past its deadline the record stays pending, with no mutation and no event", async () => {
    const h = await start();
    const rec = h.api.application.create({
      key: "t",
      ...basic,
      retention: { policy: "ttl", expires_at: "2030-01-01T00:00:05.000Z" },
    });
    h.clock.advance(60_000);
    h.api.application.create({ key: "other", ...basic });
    expect(h.api.application.list()[0]).toEqual(rec);
    expect((await h.notificationEvents()).filter((e) => e.notification_id === rec.id).map((e) => e.type)).toEqual([
      "application_notification_created",
    ]);
  });

  it("stores an expires_at given with an offset in UTC, and the session record stays readable", async () => {
    const h = await start();
    const sessionId = await h.newSession();
    const rec = h.api
      .session(sessionId)
      .create({ key: "t", ...basic, retention: { policy: "ttl", expires_at: "2030-01-01T02:00:05+02:00" } });
    expect(rec.retention.expires_at).toBe("2030-01-01T00:00:05.000Z");
    expect(sessionIds(h, sessionId)).toEqual([rec.id]);
  });
});

describe("history limit", () => {
  it.each([["history_limit"], ["max_items"]])(
    "%s prunes terminal records oldest first and never an active one",
    async (option) => {
      const h = await start({ application: { notifications: { [option]: 2 } } });
      const sessionId = await h.newSession();
      for (const ops of [h.api.application, h.api.session(sessionId)]) {
        const active = [
          ops.create({ key: "active-1", ...basic }),
          ops.create({ key: "ask", kind: "interaction", ...basic }),
        ];
        const ended = ["t1", "t2", "t3", "t4"].map((key) => {
          ops.create({ key, ...basic });
          return ops.resolve({ key });
        });
        const kept = ops.history();
        expect(kept.map((r) => r.id)).toEqual([...active.map((r) => r.id), ended[2]!.id, ended[3]!.id]);
      }
    },
  );
});
