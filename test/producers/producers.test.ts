// Producer tokens over a listening server (docs/notifications.md "Producers"): the admin makes, lists and revokes
// them; a producer publishes and resolves notifications by key at both scopes, named in the record's source, and
// is refused everywhere else.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestServer } from "../support/server.ts";
import { listeningServer, type Api } from "../search/support.ts";

let server: TestServer;
let api: Api;
beforeEach(async () => ({ server, api } = await listeningServer()));
afterEach(() => server.close());

async function producer(name = "backup"): Promise<{ producer_id: string; token: string; created_at: string }> {
  const res = await api.call("POST", "/producers", { name });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const note = (key: string, extra: object = {}) => ({ key, severity: "success", title: "Backup done", ...extra });

describe("producer tokens", () => {
  it("P1 the admin makes one (token shown once, stored hashed), lists and revokes it; the token then stops working", async () => {
    const made = await producer("nas");
    expect(made).toEqual({
      producer_id: expect.stringMatching(/^prd_/),
      name: "nas",
      created_at: expect.any(String),
      token: expect.any(String),
    });
    const listed = await api.call("GET", "/producers");
    expect(listed.json).toEqual({
      producers: [{ producer_id: made.producer_id, name: "nas", created_at: made.created_at }],
    });
    const stored = server.runtime.ctx.db.prepare("SELECT token_hash FROM producers").get() as { token_hash: string };
    expect(stored.token_hash).not.toContain(made.token);
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect((await api.call("POST", "/application/notifications", note("k"), made.token)).status).toBe(201);
    expect((await api.call("DELETE", `/producers/${made.producer_id}`)).status).toBe(204);
    const after = await api.call("POST", "/application/notifications", note("k"), made.token);
    expect(after.status).toBe(401);
    expect(after.json.error.code).toBe("unauthorized");
    expect((await api.call("DELETE", `/producers/${made.producer_id}`)).json.error.code).toBe("producer_not_found");
    expect((await api.call("GET", "/producers")).json).toEqual({ producers: [] });
  });

  it("P2 application scope: create, update by key (same id, next revision), resolve; source names the producer", async () => {
    const { token } = await producer("backup");
    const created = await api.call("POST", "/application/notifications", note("nightly"), token);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      key: "nightly",
      kind: "notification",
      status: "pending",
      revision: 1,
      source: { plugin: "producer:backup" },
    });
    const updated = await api.call(
      "POST",
      "/application/notifications",
      note("nightly", { title: "Backup 2/2 done" }),
      token,
    );
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ id: created.json.id, revision: 2, title: "Backup 2/2 done" });
    const resolved = await api.call("POST", "/application/notifications/resolve", { key: "nightly" }, token);
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.json).toMatchObject({ id: created.json.id, status: "resolved" });
    expect(
      (await api.call("POST", "/application/notifications/resolve", { key: "nightly" }, token)).json.error.code,
    ).toBe("notification_not_found");
    // The app sees it like any other: the list and the events carry it.
    const types = (await api.call("GET", "/events?since_id=0")).json.events.map((e: { type: string }) => e.type);
    expect(types).toEqual([
      "application_notification_created",
      "application_notification_updated",
      "application_notification_updated",
    ]);
  });

  it("P3 session scope: publish and resolve in a session; an unknown session is 404", async () => {
    const { token } = await producer("ci");
    const session = (await api.call("POST", "/sessions", {})).json.session.id;
    const created = await api.call("POST", `/sessions/${session}/notifications`, note("build"), token);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ key: "build", source: { plugin: "producer:ci" } });
    const listed = await api.call("GET", `/sessions/${session}/notifications`);
    expect(listed.json.map((r: { id: string }) => r.id)).toEqual([created.json.id]);
    expect(
      (await api.call("POST", `/sessions/${session}/notifications/resolve`, { key: "build" }, token)).json.status,
    ).toBe("resolved");
    const unknown = await api.call("POST", "/sessions/nope/notifications", note("x"), token);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("session_not_found");
  });

  it("P4 only kind notification, valid input, and never over an interaction's key", async () => {
    const { token } = await producer();
    const interaction = await api.call("POST", "/application/notifications", note("k", { kind: "interaction" }), token);
    expect(interaction.status).toBe(400);
    expect(interaction.json.error.details).toEqual([{ path: "body.kind", message: 'must be "notification"' }]);
    for (const body of [
      {},
      { key: "k" },
      note("k", { severity: "loud" }),
      note("k", { extra: 1 }),
      note("k", { display: { presentation: "inline" } }),
      [],
      "x",
    ]) {
      const res = await api.call("POST", "/application/notifications", body, token);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
    }
    const session = (await api.call("POST", "/sessions", {})).json.session.id;
    server.runtime.ctx.notifications
      .session(session)
      .publish({ key: "approval:r:0", kind: "interaction", severity: "warning", title: "Run tool?" }, "runner");
    for (const path of [`/sessions/${session}/notifications`, `/sessions/${session}/notifications/resolve`]) {
      const res = await api.call("POST", path, note("approval:r:0"), token);
      expect(res.status, res.text).toBe(path.endsWith("resolve") ? 400 : 409);
    }
    const resolve = await api.call(
      "POST",
      `/sessions/${session}/notifications/resolve`,
      { key: "approval:r:0" },
      token,
    );
    expect(resolve.status).toBe(409);
    expect(resolve.json.error).toMatchObject({
      code: "notification_conflict",
      details: { current: { kind: "interaction", status: "pending_response" } },
    });
  });

  it("P5 a producer token is refused (403, error body) on every other route; /health stays open", async () => {
    const { token } = await producer();
    const session = (await api.call("POST", "/sessions", {})).json.session.id;
    const routes: Array<[string, string, unknown?]> = [
      ["GET", "/sessions"],
      ["POST", "/sessions", {}],
      ["GET", `/sessions/${session}`],
      ["PATCH", `/sessions/${session}`, { title: "x" }],
      ["GET", `/sessions/${session}/messages`],
      ["POST", `/sessions/${session}/messages`, { role: "user", content: "hi" }],
      ["POST", `/sessions/${session}/send`, { content: "hi" }],
      ["GET", `/sessions/${session}/notifications`],
      ["GET", "/events?since_id=0"],
      ["GET", "/application/notifications"],
      ["POST", "/application/notifications/abc/dismiss", {}],
      ["POST", "/pairing", {}],
      ["GET", "/devices"],
      ["GET", "/producers"],
      ["POST", "/producers", { name: "evil" }],
      ["DELETE", "/producers/prd_x"],
      ["GET", "/search?q=a"],
      ["GET", "/export"],
      ["POST", "/import", []],
      ["GET", `/sessions/${session}/export?format=json`],
      ["GET", "/no/such/route"],
    ];
    for (const [method, path, body] of routes) {
      const res = await api.call(method, path, body, token);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.error.code, `${method} ${path}`).toBe("producer_not_allowed");
    }
    expect((await api.call("GET", "/health", undefined, token)).status).toBe(200);
    // Nothing those calls tried happened.
    expect((await api.call("GET", `/sessions/${session}`)).json.session.messages).toEqual([]);
  });

  it("P6 the admin token may publish too (source admin); a device token may not; /producers is admin only", async () => {
    const admin = await api.call("POST", "/application/notifications", note("a"));
    expect(admin.status).toBe(201);
    expect(admin.json.source).toEqual({ plugin: "admin" });
    const { ctx } = server.runtime;
    const paired = ctx.pairing.redeem(ctx.pairing.createCode().code, "phone");
    if (!paired.ok) throw new Error("pairing failed");
    const device = await api.call("POST", "/application/notifications", note("d"), paired.device_token);
    expect(device.status).toBe(403);
    expect(device.json.error.code).toBe("forbidden");
    expect((await api.call("POST", "/producers", { name: "x" }, paired.device_token)).status).toBe(403);
    expect((await api.call("GET", "/producers", undefined, null)).status).toBe(401);
    for (const body of [{}, { name: "" }, { name: "   " }, { name: "x".repeat(101) }, { name: "a", extra: 1 }]) {
      expect((await api.call("POST", "/producers", body)).status, JSON.stringify(body)).toBe(400);
    }
  });
});
