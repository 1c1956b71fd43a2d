// The respond route's rules (server/http/routes/interactions.ts, docs/tools.md "Approvals") beyond the ended request
// (respond-ended-request.test.ts): a request-less interaction is answered whatever else runs in its session; a
// suspended interaction is not answered through the route (the lifecycle would allow it, the route asks for
// pending_response); an interaction keyed as an approval that no run waits on is refused; and the record keeps who
// answered (the admin, or `device:<id>`) and the message when one was given; an answer at another revision than the
// expected one is refused; and the answer reaches the run waiting on an approval. Each case was seen failing with its
// rule removed (docs/testing.md "Mutation score").
import { describe, expect, it } from "vitest";
import { createNotificationApi } from "../../server/notifications/api.ts";
import { respond } from "../mcp/helpers.ts";
import { createSession, sendRunningRequest, useRunner, waitForEvent, type RunnerServer } from "../runner/helpers.ts";

const runner = useRunner({});

const question = { kind: "interaction", severity: "info", title: "Go on?" } as const;
const pluginOf = (server: RunnerServer, sessionId: string) =>
  createNotificationApi(server.runtime.ctx.notifications, "test-plugin").session(sessionId);

describe("answering an interaction through the respond route", () => {
  it("answers a request-less interaction while another request of its session runs", async () => {
    const { server, sid, rid, paused } = await sendRunningRequest(runner, "go");
    const standing = pluginOf(server, sid).create({ key: "standing", ...question });

    const taken = await respond(server, sid, standing.id, { response: "deny" });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.json).toMatchObject({ id: standing.id, status: "responded" });
    paused.resume();
    await waitForEvent(server, rid);
  });

  it("refuses a suspended interaction and one keyed as an approval that no run waits on (409), an unknown one (404)", async () => {
    const server = runner.server;
    const sid = await createSession(server);
    const plugin = pluginOf(server, sid);
    const held = plugin.create({ key: "held", ...question });
    const suspended = plugin.suspend({ key: "held" });
    expect(suspended).toMatchObject({ status: "suspended" });
    const orphan = plugin.create({ key: "approval:gone-request:0", ...question });

    for (const record of [held, orphan]) {
      const refused = await respond(server, sid, record.id, { response: "approve" });
      expect(refused.status, record.key).toBe(409);
      expect(refused.json).toMatchObject({ id: record.id });
    }
    expect(server.runtime.ctx.notifications.session(sid).get(held.id)).toMatchObject({ status: "suspended" });
    expect(server.runtime.ctx.notifications.session(sid).get(orphan.id)).toMatchObject({ status: "pending_response" });
    const unknown = await respond(server, sid, "ntf_unknown", { response: "approve" });
    expect([unknown.status, unknown.json.error.code]).toEqual([404, "notification_not_found"]);
    expect(unknown.json.error.message).toContain("ntf_unknown");
  });

  it("records who answered, the admin or the device, and the message only when one is given", async () => {
    const server = runner.server;
    const { pairing } = server.runtime.ctx;
    const device = pairing.redeem(pairing.createCode().code, "phone");
    if (!device.ok) throw new Error("pairing failed");
    const sid = await createSession(server);
    const plugin = pluginOf(server, sid);
    const byAdmin = plugin.create({ key: "by-admin", ...question });
    const byDevice = plugin.create({ key: "by-device", ...question });

    const admin = await respond(server, sid, byAdmin.id, { response: "approve" });
    expect(admin.status, admin.text).toBe(200);
    expect(admin.json.response).toStrictEqual({
      response: "approve",
      by: "admin",
      responded_at: new Date(server.clock.now()).toISOString(),
    });
    const answer = { response: "deny", message: "not now" };
    const fromDevice = await respond(server, sid, byDevice.id, answer, device.device_token);
    expect(fromDevice.status, fromDevice.text).toBe(200);
    expect(fromDevice.json.response).toMatchObject({ ...answer, by: `device:${device.device_id}` });
  });

  it("answers only at the expected revision; another one is refused 409 with the record unchanged", async () => {
    const server = runner.server;
    const sid = await createSession(server);
    const asked = pluginOf(server, sid).create({ key: "revised", ...question });
    const revision = asked.revision!;
    const stale = await respond(server, sid, asked.id, { response: "approve", expected_revision: revision + 1 });
    expect(stale.status, stale.text).toBe(409);
    expect(stale.json).toMatchObject({ id: asked.id, status: "pending_response", revision });
    const taken = await respond(server, sid, asked.id, { response: "approve", expected_revision: revision });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.json).toMatchObject({ id: asked.id, status: "responded" });
  });

  it("hands the answer and its message to the run waiting on the approval", async () => {
    const { server, sid, rid, paused } = await sendRunningRequest(runner, "go");
    const waiting = server.runtime.ctx.mcp.approvals.ask({
      sessionId: sid,
      requestId: rid,
      toolCallId: "call_1",
      callIndex: 0,
      name: "mcp__fs__write_file",
      server: "fs",
      tool: "write_file",
      args: { path: "notes.txt" },
      timeoutMs: 60_000,
      signal: new AbortController().signal,
    });
    const record = server.runtime.ctx.notifications
      .session(sid)
      .list()
      .find((one) => one.key === `approval:${rid}:0`)!;
    const answered = await respond(server, sid, record.id, { response: "deny", message: "not now" });
    expect(answered.status, answered.text).toBe(200);
    expect((await waiting).outcome).toEqual({ response: "deny", message: "not now" });
    paused.resume();
    await waitForEvent(server, rid);
  });
});
