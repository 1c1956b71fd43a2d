// Idempotent sends (client_request_id, docs/runner.md R16): a repeat within 10 minutes answers the first
// request_id and starts nothing, also when the repeats race; the memory behind it stays bounded.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { ClientRequestIds } from "../../server/runner/client-request-ids.ts";
import { completionBodies, waitForEvent } from "../runner/helpers.ts";
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

  it("is per session, expires after 10 minutes, and is at most 100 characters", async () => {
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
    server.clock.t += 60 * 1000;
    const later = await client.send(one.id, { content: "q", client_request_id: "same" });
    expect(later.request_id).not.toBe(first.request_id);
    await waitForEvent(server, later.request_id);

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

describe("ClientRequestIds memory", () => {
  it("holds at most `limit` entries (oldest out first) and drops expired ones", () => {
    let now = 0;
    const ids = new ClientRequestIds(() => now, 1000, 3);
    for (let i = 0; i < 10; i++) ids.remember("s", `id${i}`, `req${i}`);
    expect(ids.size).toBe(3);
    expect(ids.find("s", "id0")).toBeUndefined();
    expect(ids.find("s", "id9")).toBe("req9");
    now = 1000;
    expect(ids.find("s", "id9")).toBeUndefined();
    expect(ids.size).toBe(0);
  });
});
