// Input the provider must refuse cleanly instead of failing inside: request_options values that are not the
// strings a select descriptor lists, config keys named like Object.prototype members, and a cancel while a
// request is queued behind pacing (it leaves at once; the queue behind it keeps its order).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completion, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import { providerSettingsSchema, selectEndpoint } from "../../server/provider/settings.ts";
import { completionBodies, createSession, eventsOf, send, startRunnerServer, typesOf, waitForEvent, FIXTURES, type RunnerServer } from "../runner/helpers.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

let backend: ScriptedBackend;
beforeEach(async () => {
  backend = await startScriptedBackend();
  backend.setFallback({ kind: "json", body: completion({ content: "ok" }) });
});
afterEach(() => backend.close());

/** Rejects when `promise` has not settled within `ms` of real time: a bound for a failure, never a wait. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Lets pending promise callbacks and I/O run until `ready` holds (bounded by the test timeout). */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setImmediate(resolve));
}

describe("request_options values against a select descriptor", () => {
  let server: RunnerServer;
  beforeEach(async () => {
    server = await startRunnerServer(backend, {}, { request_options_ui: { reasoning_effort: { type: "select", options: ["low", "high"], rich_ui: true } } });
  });
  afterEach(() => server.close());

  it.each([
    ["an object whose toString is not callable", { toString: 1 }],
    ["an array holding an allowed value", ["low"]],
    ["a number", 1],
    ["a boolean", true],
    ["null", null],
    ["an object", { value: "low" }],
  ])("refuses %s with 400 invalid_input at body.request_options, writing nothing", async (_name, value) => {
    const sid = await createSession(server);
    const before = server.runtime.ctx.events.latestId;
    const res = await server.request({ method: "POST", url: `/sessions/${sid}/send`, payload: { content: "hi", request_options: { reasoning_effort: value } } });
    expect([res.status, res.json?.error?.code], res.text).toEqual([400, "invalid_input"]);
    expect(res.json.error.message).toContain("request_options.reasoning_effort");
    expect(res.json.error.message).toContain("low, high");
    expect(JSON.stringify(res.json.error)).toContain("body.request_options");
    expect(server.runtime.ctx.events.latestId).toBe(before);
    expect(completionBodies(backend)).toHaveLength(0);
  });

  it("sends an allowed string as it is", async () => {
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "hi", stream: false, request_options: { reasoning_effort: "high" } });
    await waitForEvent(server, rid);
    expect((completionBodies(backend)[0] as Record<string, unknown>).reasoning_effort).toBe("high");
  });

  it("a configured value must be an allowed string too (not coerced)", () => {
    const ui = { reasoning_effort: { type: "select", options: ["low"] } };
    for (const value of [["low"], { toString: 1 }, 1]) {
      expect(() => parseConfig({ providers: { p: { provider: "reference_compatible", model: "m", request_options: { reasoning_effort: value }, request_options_ui: ui } } })).toThrow(
        "config error at providers.p.request_options.reasoning_effort",
      );
    }
  });
});

describe("config keys named like Object.prototype members", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({
      providers: { local: { provider: "reference_compatible", model: "m", base_url: backend.url, endpoint_options: { primary: backend.url } } },
    });
  });
  afterEach(() => server.close());

  it.each(["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"])("?endpoint=%s is 400 unknown_endpoint", async (label) => {
    const res = await server.request({ method: "GET", url: `/providers/local/models?endpoint=${label}` });
    expect([res.status, res.json?.error?.code], res.text).toEqual([400, "unknown_endpoint"]);
    expect(res.json.error.message).toContain("endpoint_options has primary");
  });

  it("selectEndpoint refuses them without endpoint_options too, and a label that is set still works", () => {
    const bare = providerSettingsSchema.parse({ provider: "reference_compatible", model: "m" });
    expect(() => selectEndpoint(bare, "constructor")).toThrow('unknown endpoint "constructor"; endpoint_options has no labels');
    const withLabels = providerSettingsSchema.parse({ provider: "reference_compatible", model: "m", endpoint_options: { toString: "http://127.0.0.1:1/v1" } });
    expect(selectEndpoint(withLabels, "toString").base_url).toBe("http://127.0.0.1:1/v1");
  });

  it("a descriptor named like a prototype member is not given the member as its value", async () => {
    // Neither config nor a request sets `toString`: Object.prototype.toString is not a value to check.
    const config = { provider: "reference_compatible" as const, model: "m", base_url: backend.url, request_options_ui: { toString: { type: "select" as const, options: ["a"] } } };
    expect(() => parseConfig({ providers: { p: config } })).not.toThrow();
    const other = await startTestServer({ providers: { p: config } }, { configDir: FIXTURES });
    try {
      const sid = (await other.request({ method: "POST", url: "/sessions", payload: {} })).json.session.id as string;
      const res = await other.request({ method: "POST", url: `/sessions/${sid}/send`, payload: { content: "hi", stream: false, request_options: { temperature: 0.2 } } });
      expect(res.status, res.text).toBe(202);
      await waitForEvent(other, res.json.request_id as string);
    } finally {
      await other.close();
    }
  });
});
