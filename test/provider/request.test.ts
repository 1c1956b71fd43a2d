// What the adapter sends: URL, headers, payload, converted messages and images (recorded by the backend).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completion, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { makeProvider, settingsFor, user } from "./helpers.ts";
import type { Message } from "../../client/wire/messages.ts";

let backend: ScriptedBackend;
beforeAll(async () => {
  backend = await startScriptedBackend();
});
afterAll(() => backend.close());

const ok = () => ({ kind: "json", body: completion({ content: "ok" }) }) as const;
const lastBody = () => backend.requests[backend.requests.length - 1]!.body as Record<string, unknown>;
const lastHeaders = () => backend.requests[backend.requests.length - 1]!.headers;

describe("request building", () => {
  it("posts to <base_url>/chat/completions without a double slash, with model, messages and stream", async () => {
    backend.script(ok());
    const { run } = makeProvider(settingsFor(`${backend.url}/`));
    const result = await run({ stream: false });
    expect(result.done?.message.content).toBe("ok");
    const req = backend.requests[backend.requests.length - 1]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(lastBody()).toEqual({ model: "test-model", messages: [{ role: "user", content: "hi" }], stream: false });
  });

  it("sends tools and tool_choice only when tools are present", async () => {
    backend.script(ok(), ok());
    const { run } = makeProvider(settingsFor(backend.url, { request_options: { tool_choice: "required" } }));
    await run({ stream: false });
    expect(lastBody()).not.toHaveProperty("tools");
    expect(lastBody()).not.toHaveProperty("tool_choice");
    await run({
      stream: false,
      tools: [{ name: "get_time", description: "now", parameters: { type: "object", properties: {} } }],
    });
    expect(lastBody().tools).toEqual([
      {
        type: "function",
        function: { name: "get_time", description: "now", parameters: { type: "object", properties: {} } },
      },
    ]);
    expect(lastBody().tool_choice).toBe("required");
  });

  it("merges request_options (per-request over configured) and validates rich_ui selects", async () => {
    backend.script(ok());
    const settings = settingsFor(backend.url, {
      request_options: { temperature: 0.2, reasoning_effort: "low" },
      request_options_ui: { reasoning_effort: { type: "select", options: ["low", "high"], rich_ui: true } },
    });
    const { run } = makeProvider(settings);
    await run({ stream: false, request_options: { reasoning_effort: "high", max_tokens: 50 } });
    expect(lastBody()).toMatchObject({ temperature: 0.2, reasoning_effort: "high", max_tokens: 50 });
    const refused = await run({ stream: false, request_options: { reasoning_effort: "extreme" } });
    expect(refused.error?.code).toBe("invalid_request");
    expect(refused.error?.message).toContain("request_options.reasoning_effort");
    const reserved = await run({ stream: false, request_options: { model: "other" } });
    expect(reserved.error?.code).toBe("invalid_request");
  });

  it("sends a bearer token only when api_key is set, and never logs it", async () => {
    backend.script(ok(), { kind: "status", status: 401, body: { error: { message: "bad key" } } });
    const logs: string[] = [];
    const log = {
      info: (o: object, m: string) => void logs.push(JSON.stringify(o) + m),
      warn: (o: object, m: string) => void logs.push(JSON.stringify(o) + m),
    };
    await makeProvider(settingsFor(backend.url)).run({ stream: false });
    expect(lastHeaders().authorization).toBeUndefined();
    const secret = "sk-very-secret-123";
    const failed = await makeProvider(settingsFor(backend.url, { api_key: secret, debug_stream: true }), { log }).run({
      stream: false,
    });
    expect(lastHeaders().authorization).toBe(`Bearer ${secret}`);
    expect(failed.error?.status).toBe(401);
    expect(failed.error?.message).toContain("api_key");
    expect(failed.error?.message).not.toContain(secret);
    expect(logs.join("")).not.toContain(secret);
  });

  it("sends stream_options.include_usage on streams unless include_usage_in_stream is false", async () => {
    backend.script({ kind: "stream", parts: [] }, { kind: "stream", parts: [] });
    await makeProvider(settingsFor(backend.url)).run({ stream: true });
    expect(lastBody().stream_options).toEqual({ include_usage: true });
    await makeProvider(settingsFor(backend.url, { include_usage_in_stream: false })).run({ stream: true });
    expect(lastBody()).not.toHaveProperty("stream_options");
  });
});

describe("conversation to provider messages", () => {
  it("writes reasoning and tool_calls back into assistant messages and tool_call_id into tool messages", async () => {
    backend.script(ok());
    const call = { id: "call_1", type: "function", function: { name: "get_time", arguments: "{}" } };
    const messages: Message[] = [
      { role: "system", content: "be brief" },
      user("time?"),
      {
        role: "assistant",
        content: "",
        metadata: { tool_calls: [call], reasoning_content: "need a tool", reasoning: "r", usage: { prompt_tokens: 3 } },
      },
      { role: "tool", content: "12:00", metadata: { tool_call_id: "call_1", tool_name: "get_time" } },
    ];
    await makeProvider(settingsFor(backend.url)).run({ stream: false, messages });
    expect(lastBody().messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "time?" },
      { role: "assistant", content: null, tool_calls: [call], reasoning: "r", reasoning_content: "need a tool" },
      { role: "tool", content: "12:00", tool_call_id: "call_1" },
    ]);
  });

  it("sends a stored tool call named by tool_call_id (its id may be spelled tool_call_id) with it as id", async () => {
    backend.script(ok());
    const messages: Message[] = [
      user("time?"),
      {
        role: "assistant",
        content: "",
        metadata: { tool_calls: [{ tool_call_id: "call_9", function: { name: "get_time", arguments: "{}" } }] },
      },
      { role: "tool", content: "12:00", metadata: { tool_call_id: "call_9" } },
    ];
    const result = await makeProvider(settingsFor(backend.url)).run({ stream: false, messages });
    expect(result.error).toBeUndefined();
    expect((lastBody().messages as unknown[])[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_9", type: "function", function: { name: "get_time", arguments: "{}" } }],
    });
    // Neither id: the request is refused with the path of the problem.
    backend.script(ok());
    const missing = await makeProvider(settingsFor(backend.url)).run({
      stream: false,
      messages: [
        { role: "assistant", content: "", metadata: { tool_calls: [{ function: { name: "f", arguments: "{}" } }] } },
      ],
    });
    expect(missing.error?.message).toMatch(/metadata\.tool_calls\.0\.id: needs an id \(or tool_call_id\)/);
  });

  it("inlines image attachments: remote URLs, data URLs and assets read through readAsset", async () => {
    backend.script(ok());
    const readAsset = async (sessionId: string, assetId: string) => {
      expect([sessionId, assetId]).toEqual(["s1", "a1"]);
      return { media_type: "image/png", bytes: Uint8Array.of(1, 2, 3) };
    };
    const attachments = [
      { type: "image_url", url: "https://example.com/cat.png" },
      { type: "image_data", data_url: "data:image/jpeg;base64,AAAA" },
      { type: "asset", asset_id: "a1" },
    ];
    const result = await makeProvider(settingsFor(backend.url), { readAsset }).run({
      stream: false,
      session_id: "s1",
      messages: [user("look", { attachments })],
    });
    expect(result.error).toBeUndefined();
    expect((lastBody().messages as unknown[])[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
        { type: "image_url", image_url: { url: "data:image/png;base64,AQID" } },
      ],
    });
  });

  it("refuses forbidden image kinds with a typed error naming the setting, before sending anything", async () => {
    const before = backend.requests.length;
    const noUrl = await makeProvider(settingsFor(backend.url, { allow_image_attachment_url: false })).run({
      messages: [user("x", { attachments: [{ type: "image_url", url: "https://example.com/a.png" }] })],
    });
    expect(noUrl.error?.code).toBe("attachment_not_allowed");
    expect(noUrl.error?.message).toContain("allow_image_attachment_url");
    const noInline = await makeProvider(settingsFor(backend.url, { allow_image_attachment_base64: false }), {
      readAsset: async () => ({ media_type: "image/png", bytes: Uint8Array.of(1) }),
    }).run({ session_id: "s", messages: [user("x", { attachments: [{ type: "asset", asset_id: "a" }] })] });
    expect(noInline.error?.code).toBe("attachment_not_allowed");
    expect(noInline.error?.message).toContain("allow_image_attachment_base64");
    const noReader = await makeProvider(settingsFor(backend.url)).run({
      messages: [user("x", { attachments: [{ type: "asset", asset_id: "a" }] })],
    });
    expect(noReader.error?.code).toBe("attachment_unavailable");
    expect(backend.requests.length).toBe(before);
  });
});
