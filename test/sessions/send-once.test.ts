// Idempotent sends (client_request_id, docs/runner.md R16) and new chats (client_session_id): a repeat answers the
// first request_id (chat) and starts nothing, also when the repeats race, hours later or after a restart.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { completionBodies, startRunnerServer, waitForEvent } from "../runner/helpers.ts";
import { startAppStack, type AppStack } from "./support.ts";

let stack: AppStack;
beforeEach(async () => {
  stack = await startAppStack();
});
afterEach(() => stack.close());

function postSend(
  sessionId: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: { request_id?: string; error?: { code: string } } }> {
  return fetch(`${stack.url}/sessions/${sessionId}/send`, {
    method: "POST",
    headers: { "authorization": "Bearer test-admin-token", "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as never }));
}

const storedTypes = (sessionId: string) =>
  stack.server.runtime.ctx.events.list({ sinceId: 0, sessionId, limit: 10_000 }).events.map((event) => event.type);

describe("client_request_id", () => {
  it("the library generates one; sending again with it answers the first request_id and starts nothing", async () => {
    const { client, backend, server } = stack;
    backend.script(dialectStream("openai", { content: "hello" }));
    const session = await client.createSession();
    const first = await client.send(session.id, { content: "hi" });
    expect(first.client_request_id).toMatch(/^crid_[0-9a-f]{32}$/);
    await waitForEvent(server, first.request_id);
    const again = await client.send(session.id, { content: "hi", client_request_id: first.client_request_id });
    expect(again.request_id).toBe(first.request_id);
    expect(storedTypes(session.id).filter((type) => type === "request_started")).toHaveLength(1);
    expect((await client.loadMessages(session.id)).messages.map((m) => m.content)).toEqual(["hi", "hello"]);
    expect(completionBodies(backend)).toHaveLength(1);
  });

  it("racing repeats all answer one request_id while another id is refused as busy", async () => {
    const { client, backend, server } = stack;
    backend.script({
      kind: "stream",
      parts: [{ data: { choices: [{ index: 0, delta: { content: "x" } }] } }],
      pauseAfter: 0,
    });
    const session = await client.createSession();
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => postSend(session.id, { content: "once", client_request_id: "tap-1" })),
      postSend(session.id, { content: "other", client_request_id: "tap-2" }),
    ]);
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(accepted).toHaveLength(8);
    expect(new Set(accepted.map((answer) => answer.body.request_id)).size).toBe(1);
    expect(answers.find((answer) => answer.status !== 202)).toMatchObject({
      status: 409,
      body: { error: { code: "request_in_progress" } },
    });
    expect(storedTypes(session.id).filter((type) => type === "request_started")).toHaveLength(1);
    (await backend.nextPause()).resume();
    await waitForEvent(server, accepted[0]!.body.request_id!);
  });

  it("is per session, still answers after 10 minutes, and is at most 100 characters", async () => {
    const { client, backend, server } = stack;
    backend.script(
      dialectStream("openai", { content: "a" }),
      dialectStream("openai", { content: "b" }),
      dialectStream("openai", { content: "c" }),
    );
    const one = await client.createSession();
    const two = await client.createSession();
    const first = await client.send(one.id, { content: "q", client_request_id: "same" });
    await waitForEvent(server, first.request_id);
    const elsewhere = await client.send(two.id, { content: "q", client_request_id: "same" });
    expect(elsewhere.request_id).not.toBe(first.request_id);
    await waitForEvent(server, elsewhere.request_id);
    server.clock.t += 9 * 60 * 1000;
    expect((await client.send(one.id, { content: "q", client_request_id: "same" })).request_id).toBe(first.request_id);
    server.clock.t += 24 * 60 * 60 * 1000;
    expect((await client.send(one.id, { content: "q", client_request_id: "same" })).request_id).toBe(first.request_id);
    expect(completionBodies(backend)).toHaveLength(2);

    const tooLong = await postSend(one.id, { content: "q", client_request_id: "x".repeat(101) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error?.code).toBe("invalid_input");
    expect((await postSend(one.id, { content: "q", client_request_id: "" })).status).toBe(400);
  });

  it("a refused send is not remembered: the same id can send once the refusal is gone", async () => {
    const { client, backend, server } = stack;
    backend.script(
      { kind: "stream", parts: [{ data: { choices: [{ index: 0, delta: { content: "x" } }] } }], pauseAfter: 0 },
      dialectStream("openai", { content: "y" }),
    );
    const session = await client.createSession();
    const running = await client.send(session.id, { content: "first" });
    expect((await postSend(session.id, { content: "second", client_request_id: "retry-me" })).status).toBe(409);
    (await backend.nextPause()).resume();
    await waitForEvent(server, running.request_id);
    const retried = await postSend(session.id, { content: "second", client_request_id: "retry-me" });
    expect(retried.status).toBe(202);
    expect(retried.body.request_id).not.toBe(running.request_id);
    await waitForEvent(server, retried.body.request_id!);
  });
});

describe("client ids live as long as their chat", () => {
  it("a send's id answers its request_id across a restart, and is gone with the chat", async () => {
    const { backend, server } = stack;
    backend.script(dialectStream("openai", { content: "a" }));
    const id = (await server.request({ method: "POST", url: "/sessions", payload: {} })).json.session.id as string;
    const send = () =>
      server.request({
        method: "POST",
        url: `/sessions/${id}/send`,
        payload: { content: "q", client_request_id: "o1" },
      });
    const first = (await send()).json.request_id as string;
    await waitForEvent(server, first);
    await server.close(true);

    const again = await startRunnerServer(backend, {}, {}, server.dataDir);
    try {
      const repeat = await again.request({
        method: "POST",
        url: `/sessions/${id}/send`,
        payload: { content: "q", client_request_id: "o1" },
      });
      expect(repeat).toMatchObject({ status: 202, json: { request_id: first } });
      expect(completionBodies(backend)).toHaveLength(1);
      expect((await again.request({ method: "DELETE", url: `/sessions/${id}` })).status).toBe(204);
      const rows = again.runtime.ctx.transactor.db.prepare("SELECT count(*) AS n FROM client_requests").get();
      expect(rows).toEqual({ n: 0 });
    } finally {
      await again.close();
    }
  });

  it("POST /sessions with a client_session_id answers the chat the first call made, per person, while it exists", async () => {
    const { server } = stack;
    const create = (payload: Record<string, unknown>) => server.request({ method: "POST", url: "/sessions", payload });
    const first = await create({ client_session_id: "new-1" });
    expect(first.status).toBe(201);
    await server.request({
      method: "POST",
      url: `/sessions/${first.json.session.id}/messages`,
      payload: { role: "user", content: "kept" },
    });
    const repeat = await create({ client_session_id: "new-1" });
    expect(repeat.status).toBe(201);
    expect(repeat.json.session.id).toBe(first.json.session.id);
    expect(repeat.json.session.messages.map((m: { content: string }) => m.content)).toEqual(["kept"]);
    expect((await create({ client_session_id: "new-2" })).json.session.id).not.toBe(first.json.session.id);
    expect((await create({})).json.session.id).not.toBe(first.json.session.id);
    expect((await create({ client_session_id: "x".repeat(101) })).json.error.code).toBe("invalid_input");
    expect((await create({ client_session_id: 7 })).status).toBe(400);

    await server.request({ method: "DELETE", url: `/sessions/${first.json.session.id}` });
    const afterDelete = await create({ client_session_id: "new-1" });
    expect(afterDelete.status).toBe(201);
    expect(afterDelete.json.session.id).not.toBe(first.json.session.id);
  });
});
