// Pacing per base_url scope (shared, FIFO), model discovery and the HTTP routes.
import Fastify from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startScriptedBackend, completion, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { resolveAgents } from "../../server/config/agents.ts";
import { parseConfig } from "../../server/config/load.ts";
import { installErrorHandling } from "../../server/http/error-handler.ts";
import { createProvider } from "../../server/provider/provider.ts";
import { PacingRegistry } from "../../server/provider/pacing.ts";
import { registerProviderRoutes } from "../../server/http/routes/providers.ts";
import { TestClock, collect, settingsFor, user } from "./helpers.ts";

let backend: ScriptedBackend;
beforeAll(async () => {
  backend = await startScriptedBackend();
});
afterAll(() => backend.close());
beforeEach(() => backend.reset());

describe("pacing (min_request_interval_seconds)", () => {
  it("spaces request starts per base_url scope across providers, in FIFO order under concurrency", async () => {
    const clock = new TestClock();
    const pacing = new PacingRegistry();
    const ok = (n: number) => ({ kind: "json", body: completion({ content: `r${n}` }) }) as const;
    backend.script(ok(0), ok(1), ok(2), ok(3));
    // Two agents on the same scope (one with a trailing slash): one queue.
    const a = createProvider(settingsFor(backend.url, { min_request_interval_seconds: 2 }), { clock, pacing });
    const b = createProvider(settingsFor(`${backend.url}/`, { min_request_interval_seconds: 2 }), { clock, pacing });
    const before = backend.requests.length;
    const runs = [a, b, a, b].map((p, i) =>
      collect(p.complete({ messages: [user(`q${i}`)], stream: false, signal: new AbortController().signal })),
    );
    const results = await Promise.all(runs);
    expect(results.every((r) => r.done)).toBe(true);
    expect(clock.waits).toEqual([2000, 2000, 2000]);
    const order = backend.requests
      .slice(before)
      .map((r) => (r.body as { messages: Array<{ content: string }> }).messages[0]!.content);
    expect(order).toEqual(["q0", "q1", "q2", "q3"]);
  });

  it("another base_url is another scope, and 0 means no pacing", async () => {
    const clock = new TestClock();
    const pacing = new PacingRegistry();
    await pacing.acquire("http://a/v1", 5, clock, new AbortController().signal);
    await pacing.acquire("http://b/v1", 5, clock, new AbortController().signal);
    await pacing.acquire("http://c/v1", 0, clock, new AbortController().signal);
    await pacing.acquire("http://c/v1", 0, clock, new AbortController().signal);
    expect(clock.waits).toEqual([]);
    await pacing.acquire("http://a/v1", 5, clock, new AbortController().signal);
    expect(clock.waits).toEqual([5000]);
  });
});

describe("model discovery", () => {
  it("GET <base_url>/models lists model ids", async () => {
    const discovery = await createProvider(settingsFor(backend.url), { clock: new TestClock() }).listModels();
    expect(discovery).toEqual({
      models: [
        { id: "scripted-large", owned_by: "scripted" },
        { id: "scripted-small", owned_by: "scripted" },
      ],
    });
    expect(backend.requests[backend.requests.length - 1]!.path).toBe("/v1/models");
  });

  it("a failed discovery reports why; a custom model id is still used for completions", async () => {
    backend.setModels({ kind: "raw", status: 404, contentType: "text/html", body: "<html>nope</html>" });
    const provider = createProvider(settingsFor(backend.url, { model: "my-custom-model" }), {
      clock: new TestClock(),
      pacing: new PacingRegistry(),
    });
    const discovery = await provider.listModels();
    expect(discovery.models).toEqual([]);
    expect(discovery.error).toContain("HTTP 404");
    backend.script({ kind: "json", body: completion({ content: "hi" }) });
    const result = await collect(
      provider.complete({ messages: [user("x")], stream: false, signal: new AbortController().signal }),
    );
    expect(result.done?.message.content).toBe("hi");
    expect((backend.requests[backend.requests.length - 1]!.body as { model: string }).model).toBe("my-custom-model");
    backend.setModels({
      object: "list",
      data: [
        { id: "scripted-large", owned_by: "scripted" },
        { id: "scripted-small", owned_by: "scripted" },
      ],
    });
  });
});

describe("routes", () => {
  async function app(config: unknown) {
    const parsed = parseConfig(config);
    const server = Fastify();
    installErrorHandling(server);
    registerProviderRoutes(server, { config: parsed, agents: resolveAgents(parsed), clock: new TestClock() });
    await server.ready();
    return server;
  }
  const config = () => ({
    providers: {
      local: {
        provider: "reference_compatible",
        model: "m1",
        base_url: backend.url,
        api_key: "sk-never-shown",
        endpoint_options: { primary: backend.url, broken: backend.url.replace(/\/v1$/, "/nope") },
        request_options_ui: { reasoning_effort: { type: "select", options: ["low", "high"], rich_ui: true } },
      },
    },
    agents: { helper: { provider_id: "local", model: "m2", show_usage: false } },
  });

  it("GET /agents lists what frontends render, never the api_key", async () => {
    const server = await app(config());
    const res = await server.inject({ method: "GET", url: "/agents" });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain("sk-never-shown");
    expect(res.json().agents).toEqual([
      expect.objectContaining({
        agent_id: "helper",
        provider_id: "local",
        provider: "reference_compatible",
        model: "m2",
        endpoint: "primary",
        show_usage: false,
        show_estimated_cached_tokens: false,
        request_options_ui: { reasoning_effort: { type: "select", options: ["low", "high"], rich_ui: true } },
      }),
    ]);
  });

  it("GET /providers/:id/models discovers, follows a chosen endpoint label, 404s unknown providers", async () => {
    const server = await app(config());
    const ok = await server.inject({ method: "GET", url: "/providers/local/models" });
    expect(ok.json()).toMatchObject({
      provider_id: "local",
      models: [{ id: "scripted-large" }, { id: "scripted-small" }],
      custom_model_allowed: true,
    });
    const broken = await server.inject({ method: "GET", url: "/providers/local/models?endpoint=broken" });
    expect(broken.statusCode).toBe(200);
    expect(broken.json().models).toEqual([]);
    expect(broken.json().error).toContain("/nope/models");
    const badLabel = await server.inject({ method: "GET", url: "/providers/local/models?endpoint=zzz" });
    expect(badLabel.statusCode).toBe(400);
    const missing = await server.inject({ method: "GET", url: "/providers/nope/models" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe("provider_not_found");
    // Object.prototype members are no provider ids.
    for (const id of ["__proto__", "hasOwnProperty", "constructor"]) {
      const inherited = await server.inject({ method: "GET", url: `/providers/${id}/models` });
      expect([inherited.statusCode, inherited.json().error.code]).toEqual([404, "provider_not_found"]);
    }
  });
});
