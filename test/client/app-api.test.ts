// The client library's app-facing methods against a listening server and the scripted backend: each answer is
// parsed by its wire schema, and every call goes through ChatClient.request, the one request function (C31, C32).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import { ChatClient, HttpError, ProtocolError, type RequestOptions } from "../../client/index.ts";
import { waitForEvent } from "../runner/helpers.ts";
import { startAppStack, type AppStack } from "../sessions/support.ts";
import { ADMIN_TOKEN } from "../support/server.ts";

/** Records every call that reaches the one request function, then lets it through. */
class RecordingClient extends ChatClient {
  readonly calls: string[] = [];
  override request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.infer<S>> {
    this.calls.push(`${method} ${path}`);
    return super.request(method, path, schema, options);
  }
}

// The smallest valid PNG (1×1): the server sniffs image bytes.
const PNG = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    "base64",
  ),
);

let stack: AppStack;
let client: RecordingClient;
beforeEach(async () => {
  stack = await startAppStack();
  client = new RecordingClient({
    server_url: stack.url,
    device_token: ADMIN_TOKEN,
    bridge_url: "ws://127.0.0.1:9/socket",
    server_id: "srv",
    device_id: "admin",
  });
});
afterEach(async () => {
  client.close();
  await stack.close();
});

describe("ChatClient app methods", () => {
  it("sessions and messages: create, get, append, modify, delete, fork", async () => {
    const session = await client.createSession();
    const { message } = await client.appendMessage(session.id, { role: "user", content: "one" });
    expect(message).toEqual({ role: "user", content: "one", metadata: {} });
    await client.appendMessage(session.id, { role: "assistant", content: "two" });
    expect((await client.modifyMessage(session.id, 0, "uno")).messages[0]!.content).toBe("uno");
    expect((await client.deleteMessages(session.id, [1])).messages.map((m) => m.content)).toEqual(["uno"]);
    const fork = await client.forkSession(session.id);
    expect(fork).toMatchObject({ source_session_id: session.id, messages: [{ content: "uno" }] });
    expect((await client.getSession(fork.id)).id).toBe(fork.id);
    expect(await client.getSessionPage(session.id, { limit: 1 })).toMatchObject({
      messages: [{ content: "uno" }],
      messages_total: 1,
      messages_start: 0,
    });
    const sid = encodeURIComponent(session.id);
    expect(client.calls).toEqual([
      "POST /sessions",
      `POST /sessions/${sid}/messages`,
      `POST /sessions/${sid}/messages`,
      `PATCH /sessions/${sid}/messages/0`,
      `DELETE /sessions/${sid}/messages`,
      `POST /sessions/${sid}/fork`,
      `GET /sessions/${encodeURIComponent(fork.id)}`,
      `GET /sessions/${sid}`,
    ]);
  });

  it("attachments: store (base64), download the same bytes with their type, delete", async () => {
    const session = await client.createSession();
    const stored = await client.storeAttachment(session.id, { bytes: PNG, filename: "dot.png" });
    expect(stored).toMatchObject({ media_type: "image/png", size: PNG.length, filename: "dot.png" });
    const downloaded = await client.downloadAttachment(session.id, stored.asset_id);
    expect(downloaded.media_type).toBe("image/png");
    expect(Buffer.from(downloaded.bytes).equals(Buffer.from(PNG))).toBe(true);
    await client.deleteAttachment(session.id, stored.asset_id);
    const gone = await client.downloadAttachment(session.id, stored.asset_id).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(HttpError);
    expect((gone as HttpError).status).toBe(404);
    expect(client.calls.filter((call) => call.includes("reference_compatible_attachments"))).toHaveLength(4);
  });

  it("agents and models", async () => {
    const [agent] = await client.listAgents();
    expect(agent).toMatchObject({
      agent_id: "default",
      provider_id: "default",
      model: "scripted",
      show_usage: true,
      request_options_ui: {},
    });
    const models = await client.listModels("default");
    expect(models.models.map((m) => m.id)).toEqual(["scripted-large", "scripted-small"]);
    expect(models.custom_model_allowed).toBe(true);
    expect(client.calls).toEqual(["GET /agents", "GET /providers/default/models"]);
  });

  it("send and cancel a streaming reply", async () => {
    stack.backend.script({
      kind: "stream",
      parts: [{ data: { choices: [{ index: 0, delta: { content: "x" } }] } }],
      pauseAfter: 1,
    });
    const session = await client.createSession();
    const { request_id } = await client.send(session.id, { content: "long answer please" });
    await stack.backend.nextPause();
    await client.cancel(session.id, request_id);
    const events = await waitForEvent(stack.server, request_id);
    expect(events.map((event) => event.type)).toContain("request_cancelled");
    const refused = await client.cancel(session.id, request_id).catch((error: unknown) => error);
    expect((refused as HttpError).code).toBe("request_finished");
  });

  it("refuses an answer that does not match the wire schema (ProtocolError), and bad input before sending", async () => {
    const oddList = { sessions: [{ id: 5 }] };
    const pageWithoutStart = {
      session: { id: "s", agent_id: "a", version: 1, created_at: "t", updated_at: "t", metadata: {}, messages: [] },
    };
    const odd = new ChatClient(
      {
        server_url: stack.url,
        device_token: ADMIN_TOKEN,
        bridge_url: "ws://127.0.0.1:9/socket",
        server_id: "srv",
        device_id: "admin",
      },
      {
        fetch: async (input) =>
          new Response(JSON.stringify(String(input).includes("messages_limit") ? pageWithoutStart : oddList), {
            status: 200,
            headers: { "content-type": "application/json" },
          }),
      },
    );
    await expect(odd.listSessions()).rejects.toBeInstanceOf(ProtocolError);
    // A page is checked as a page in the answer's one check: a session without messages_start is refused so.
    const refusedPage = await odd.getSessionPage("s", { limit: 10 }).catch((error: unknown) => error);
    expect(refusedPage).toBeInstanceOf(ProtocolError);
    expect((refusedPage as ProtocolError).message).toMatch(/^GET \/sessions\/s: unexpected answer: [^]*messages_start/);
    await expect(client.send("s", { content: "x", client_request_id: "x".repeat(101) })).rejects.toThrow();
    await expect(client.updateSession("s", { title: "" })).rejects.toThrow();
    expect(client.calls).toEqual([]);
  });
});
