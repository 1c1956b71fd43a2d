import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PREFLIGHT, startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({
    agents: { default: { provider_id: "local" }, coder: { provider_id: "local" } },
    providers: { local: { provider: "reference_compatible", model: "m", base_url: "http://127.0.0.1:9/v1" } },
  });
});
afterEach(() => server.close());

async function allEvents() {
  return (await server.request({ method: "GET", url: "/events?since_id=0" })).json.events as Array<
    Record<string, unknown>
  >;
}

async function newSession(body: object = {}) {
  const res = await server.request({ method: "POST", url: "/sessions", payload: body });
  expect(res.status).toBe(201);
  return res.json.session as { id: string; version: number; agent_id: string };
}

describe("session routes", () => {
  it("creates, lists and gets sessions; session_created carries agent_id and the full session, then a checkpoint", async () => {
    const session = await newSession({ agent_id: "coder" });
    expect(session).toMatchObject({ agent_id: "coder", version: 1, messages: [], metadata: {} });
    expect(
      (await server.request({ method: "GET", url: "/sessions" })).json.sessions.map((s: { id: string }) => s.id),
    ).toEqual([session.id]);
    expect((await server.request({ method: "GET", url: `/sessions/${session.id}` })).json.session).toEqual(session);
    const events = await allEvents();
    expect(events.map((e) => e.type)).toEqual(["session_created", "checkpoint"]);
    // The HTTP answer shows the chat to its caller (owner, owner_name, shares: docs/people.md); events carry the session.
    const { owner: _owner, owner_name: _name, shares: _shares, ...stored } = session as Record<string, unknown>;
    expect(events[0]).toMatchObject({ session_id: session.id, agent_id: "coder", session: stored });
    expect(events[0]).not.toHaveProperty("request_id");
  });

  it("appends, modifies and deletes messages with their events, each save a new version", async () => {
    const { id } = await newSession();
    const appended = await server.request({
      method: "POST",
      url: `/sessions/${id}/messages`,
      payload: { role: "user", content: "hello", metadata: { lang: "en" } },
    });
    expect(appended.status).toBe(201);
    expect(appended.json.message).toEqual({ role: "user", content: "hello", metadata: { lang: "en" } });
    await server.request({
      method: "POST",
      url: `/sessions/${id}/messages`,
      payload: { role: "assistant", content: "hi" },
    });
    const modified = await server.request({
      method: "PATCH",
      url: `/sessions/${id}/messages/1`,
      payload: { content: "hi there" },
    });
    expect(modified.json.session.messages[1].content).toBe("hi there");
    const deleted = await server.request({
      method: "DELETE",
      url: `/sessions/${id}/messages`,
      payload: { indices: [0] },
    });
    expect(deleted.json.session).toMatchObject({ version: 5, messages: [{ role: "assistant", content: "hi there" }] });
    const events = (await allEvents()).filter((e) => e.type !== "checkpoint");
    expect(events.map((e) => e.type)).toEqual([
      "session_created",
      "message_appended",
      "message_appended",
      "message_modified",
      "messages_deleted",
    ]);
    expect(events[1]).toMatchObject({
      role: "user",
      content: "hello",
      metadata: { lang: "en" },
      message: { role: "user" },
      session: { version: 2 },
    });
    expect(events[3]).toMatchObject({ index: 1, content: "hi there", session: { version: 4 } });
    expect(events[4]).toMatchObject({ indices: [0], session: { version: 5 } });
  });

  it("treats an empty body with a JSON content type as no body", async () => {
    const postJson = (url: string, payload: string) =>
      server.request({ method: "POST", url, payload, headers: { "content-type": "application/json" } });
    const created = await postJson("/sessions", "");
    expect(created.status).toBe(201);
    const fork = await postJson(`/sessions/${created.json.session.id}/fork`, "");
    expect(fork.status).toBe(201);
    const required = await postJson(`/sessions/${created.json.session.id}/messages`, "");
    expect(required.status).toBe(400);
    expect(required.json.error.code).toBe("invalid_input");
    const poisoned = await postJson("/sessions", '{"__proto__": {"x": 1}}');
    expect(poisoned.status).toBe(400);
  });

  it("forks with source_session_id and the source's messages", async () => {
    const { id } = await newSession();
    await server.request({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content: "a" } });
    const fork = await server.request({ method: "POST", url: `/sessions/${id}/fork`, payload: {} });
    expect(fork.status).toBe(201);
    expect(fork.json.session).toMatchObject({ source_session_id: id, messages: [{ content: "a" }] });
    const created = (await allEvents()).filter((e) => e.type === "session_created");
    expect(created[1]).toMatchObject({ session_id: fork.json.session.id, source_session_id: id });
  });

  it("loads messages with the cursor of the checkpoint written by the last save", async () => {
    const { id } = await newSession();
    await server.request({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content: "a" } });
    const snapshot = (await server.request({ method: "GET", url: `/sessions/${id}/messages` })).json;
    const last = (await allEvents()).at(-1)!;
    expect(last.type).toBe("checkpoint");
    expect(snapshot).toEqual({
      session_id: id,
      version: 2,
      messages: [{ role: "user", content: "a", metadata: {} }],
      cursor_event_id: last.event_id,
    });
  });
});

describe("bad input gets a clear 4xx and writes nothing", () => {
  const cases: Array<
    [
      string,
      (id: string) => {
        method: "POST" | "PATCH" | "DELETE" | "GET";
        url: string;
        payload?: string | object;
        headers?: Record<string, string>;
      },
      number,
      string,
    ]
  > = [
    [
      "malformed JSON",
      (id) => ({
        method: "POST",
        url: `/sessions/${id}/messages`,
        payload: "{oops",
        headers: { "content-type": "application/json" },
      }),
      400,
      "invalid_json",
    ],
    [
      "a wrong type",
      (id) => ({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content: 5 } }),
      400,
      "invalid_input",
    ],
    [
      "an unknown role",
      (id) => ({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "robot", content: "x" } }),
      400,
      "invalid_input",
    ],
    [
      "an unknown key",
      (id) => ({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content: "x", extra: 1 } }),
      400,
      "invalid_input",
    ],
    [
      "an unknown session",
      () => ({ method: "POST", url: `/sessions/nope/messages`, payload: { role: "user", content: "x" } }),
      404,
      "session_not_found",
    ],
    [
      "an unknown agent",
      () => ({ method: "POST", url: `/sessions`, payload: { agent_id: "ghost" } }),
      404,
      "agent_not_found",
    ],
    [
      "an index out of range",
      (id) => ({ method: "PATCH", url: `/sessions/${id}/messages/7`, payload: { content: "x" } }),
      404,
      "message_not_found",
    ],
    [
      "a negative index",
      (id) => ({ method: "PATCH", url: `/sessions/${id}/messages/-1`, payload: { content: "x" } }),
      400,
      "invalid_input",
    ],
    [
      "duplicate indices",
      (id) => ({ method: "DELETE", url: `/sessions/${id}/messages`, payload: { indices: [0, 0] } }),
      400,
      "invalid_input",
    ],
    [
      "delete out of range",
      (id) => ({ method: "DELETE", url: `/sessions/${id}/messages`, payload: { indices: [0, 9] } }),
      400,
      "index_out_of_range",
    ],
    [
      "negative delete index",
      (id) => ({ method: "DELETE", url: `/sessions/${id}/messages`, payload: { indices: [-1] } }),
      400,
      "invalid_input",
    ],
    [
      "metadata nested 5,000 deep",
      (id) => ({
        method: "POST",
        url: `/sessions/${id}/messages`,
        payload: `{"role":"user","content":"x","metadata":{"a":${"[".repeat(5000)}${"]".repeat(5000)}}}`,
        headers: { "content-type": "application/json" },
      }),
      400,
      "invalid_json",
    ],
    [
      "a body over the limit",
      (id) => ({
        method: "POST",
        url: `/sessions/${id}/messages`,
        payload: { role: "user", content: "x".repeat(1_100_000) },
      }),
      413,
      "payload_too_large",
    ],
    ["a non-numeric since_id", () => ({ method: "GET", url: `/events?since_id=12abc` }), 400, "invalid_input"],
    ["wait_ms out of range", () => ({ method: "GET", url: `/events?since_id=0&wait_ms=30001` }), 400, "invalid_input"],
    ["an unknown query key", () => ({ method: "GET", url: `/events?since=0` }), 400, "invalid_input"],
    ["an unknown route", () => ({ method: "GET", url: `/nowhere` }), 404, "route_not_found"],
  ];

  it.each(cases)("%s", async (_name, build, status, code) => {
    const res0 = await server.request({ method: "POST", url: "/sessions", payload: {} });
    const id = res0.json.session.id as string;
    await server.request({
      method: "POST",
      url: `/sessions/${id}/messages`,
      payload: { role: "user", content: "keep" },
    });
    const before = await allEvents();
    const res = await server.request(build(id));
    expect(res.status).toBe(status);
    expect(res.json.error).toMatchObject({ code, message: expect.any(String) });
    if (code === "invalid_input") expect(res.json.error.details[0].path).toMatch(/^(body|query|params)/);
    expect(await allEvents()).toEqual(before);
    expect((await server.request({ method: "GET", url: `/sessions/${id}` })).json.session.messages).toEqual([
      { role: "user", content: "keep", metadata: {} },
    ]);
  });

  it("answers 401 without a token or with a wrong one, and serves /health openly", async () => {
    expect((await server.request({ method: "GET", url: "/sessions", token: null })).json.error.code).toBe(
      "unauthorized",
    );
    expect((await server.request({ method: "GET", url: "/sessions", token: "wrong" })).status).toBe(401);
    expect((await server.request({ method: "GET", url: "/health", token: null })).json).toEqual({ ok: true });
  });
});

describe("CORS", () => {
  it("answers a preflight without a token and marks answers for any origin", async () => {
    const preflight = await server.request(PREFLIGHT);
    expect(preflight.status).toBe(204);
    expect(preflight.text).toBe("");
    const res = await server.runtime.app.inject({
      method: "GET",
      url: "/sessions",
      headers: { origin: "http://app.example", authorization: "Bearer test-admin-token" },
    });
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    const denied = await server.runtime.app.inject({
      method: "GET",
      url: "/sessions",
      headers: { origin: "http://app.example" },
    });
    expect(denied.statusCode).toBe(401);
  });
});
