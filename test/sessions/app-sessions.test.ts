// Sessions as the companion app uses them, through the client library over a listening server: summaries,
// titles, rename and model override (PATCH /sessions/{id}, session_updated), and the override reaching the
// scripted backend in the request body.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HttpError, isEvent, sessionUpdatedEvent, type AnyEvent } from "../../client/index.ts";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { completionBodies, waitForEvent } from "../runner/helpers.ts";
import { startAppStack, type AppStack } from "./support.ts";

let stack: AppStack;
beforeEach(async () => {
  stack = await startAppStack({
    agents: { default: { provider_id: "default" }, coder: { provider_id: "default", model: "coder-model" } },
  });
});
afterEach(() => stack.close());

const tick = (ms = 1000) => (stack.server.clock.t += ms);

function storedEvents(type: string): AnyEvent[] {
  return stack.server.runtime.ctx.events
    .list({ sinceId: 0, limit: 10_000 })
    .events.filter((event) => event.type === type);
}

describe("session list (S1)", () => {
  it("lists summaries newest activity first, titled by the first user message, without messages", async () => {
    const { client } = stack;
    const older = await client.createSession();
    tick();
    const newer = await client.createSession({ agent_id: "coder" });
    tick();
    const long = `  Plan   a trip\nto Lisbon ${"with many details ".repeat(20)}`;
    await client.appendMessage(older.id, { role: "user", content: long });
    await client.appendMessage(older.id, { role: "user", content: "second question" });

    const sessions = await client.listSessions();
    expect(sessions.map((s) => s.id)).toEqual([older.id, newer.id]);
    expect(sessions[0]).toEqual({
      id: older.id,
      title: expect.stringMatching(/^Plan a trip to Lisbon with many details .*…$/),
      agent_id: "default",
      model: null,
      created_at: older.created_at,
      updated_at: new Date(stack.server.clock.t).toISOString(),
      message_count: 2,
      archived: false,
      pinned: false,
      // The list shows each chat to its caller's person (docs/people.md "Visibility").
      owner: expect.stringMatching(/^per_/),
      owner_name: "Owner",
      shares: [],
    });
    expect([...sessions[0]!.title]).toHaveLength(80);
    expect(sessions[1]).toMatchObject({ title: "", agent_id: "coder", message_count: 0 });
    expect(sessions[0]).not.toHaveProperty("messages");
  });

  it("keeps the list small for a 2,000-message session", async () => {
    const { client, server } = stack;
    const session = await client.createSession();
    const messages = Array.from({ length: 2000 }, (_, i) => ({
      role: "user" as const,
      content: `message ${i} ${"x".repeat(200)}`,
    }));
    server.runtime.ctx.sessions.change(session.id, (current) => ({
      next: { ...current, messages },
      events: () => [],
      result: () => undefined,
    }));
    const response = await fetch(`${stack.url}/sessions`, { headers: { authorization: "Bearer test-admin-token" } });
    const text = await response.text();
    expect(JSON.parse(text).sessions[0]).toMatchObject({ message_count: 2000 });
    expect(text.length).toBeLessThan(1000);
  });
});

describe("PATCH /sessions/{id} (S2, S3)", () => {
  it("renames, publishes session_updated with the saved session, and null goes back to the first user message", async () => {
    const { client } = stack;
    const session = await client.createSession();
    await client.appendMessage(session.id, { role: "user", content: "What is a monad?" });
    expect((await client.listSessions())[0]!.title).toBe("What is a monad?");

    const renamed = await client.updateSession(session.id, { title: "  Monads  " });
    expect(renamed).toMatchObject({ id: session.id, title: "Monads", version: 3 });
    expect((await client.getSession(session.id)).title).toBe("Monads");
    expect((await client.listSessions())[0]!.title).toBe("Monads");
    const [updated] = storedEvents("session_updated");
    expect(isEvent(updated!, "session_updated")).toBe(true);
    expect(sessionUpdatedEvent.parse(updated)).toMatchObject({
      session_id: session.id,
      session: { title: "Monads", version: 3 },
    });

    const cleared = await client.updateSession(session.id, { title: null });
    expect(cleared).not.toHaveProperty("title");
    expect((await client.listSessions())[0]!.title).toBe("What is a monad?");
    expect(storedEvents("session_updated")).toHaveLength(2);
  });

  it("refuses bad bodies with the issue paths and unknown sessions with 404; nothing is published", async () => {
    const { client, url } = stack;
    const session = await client.createSession();
    for (const body of [{ title: "" }, { title: 5 }, { model: "x".repeat(201) }, { colour: "red" }, { title: "   " }]) {
      const response = await fetch(`${url}/sessions/${session.id}`, {
        method: "PATCH",
        headers: { "authorization": "Bearer test-admin-token", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = ((await response.json()) as { error: { code: string; details: Array<{ path: string }> } }).error;
      expect(error.code).toBe("invalid_input");
      expect(error.details[0]!.path).toMatch(/^body/);
    }
    const missing = await client.updateSession("no-such-session", { title: "x" }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(HttpError);
    expect((missing as HttpError).status).toBe(404);
    expect(storedEvents("session_updated")).toHaveLength(0);
  });

  it("a model override goes into the backend's request body; null goes back to the agent's model", async () => {
    const { client, backend, server } = stack;
    const session = await client.createSession({ agent_id: "coder" });
    expect((await client.updateSession(session.id, { model: "override-7b" })).model).toBe("override-7b");
    expect((await client.listSessions())[0]!.model).toBe("override-7b");
    backend.script(dialectStream("openai", { content: "one" }), dialectStream("openai", { content: "two" }));
    await waitForEvent(server, (await client.send(session.id, { content: "first" })).request_id);
    await client.updateSession(session.id, { model: null });
    await waitForEvent(server, (await client.send(session.id, { content: "second" })).request_id);
    expect(completionBodies(backend).map((body) => (body as { model?: string }).model)).toEqual([
      "override-7b",
      "coder-model",
    ]);
  });
});
