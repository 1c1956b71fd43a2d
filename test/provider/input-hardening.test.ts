// Input the provider must refuse cleanly instead of failing inside: request_options values that are not the
// strings a select descriptor lists, config keys named like Object.prototype members, and a cancel while a
// request is queued behind pacing (it leaves at once; the queue behind it keeps its order).
import { holds } from "../support/holds.ts";
import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completion, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import { PacingRegistry } from "../../server/provider/pacing.ts";
import { providerSettingsSchema, selectEndpoint } from "../../server/provider/settings.ts";
import {
  completionBodies,
  createSession,
  eventsOf,
  send,
  startRunnerServer,
  typesOf,
  waitForEvent,
  FIXTURES,
  type RunnerServer,
} from "../runner/helpers.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { TestClock } from "./helpers.ts";

let backend: ScriptedBackend;
beforeEach(async () => {
  backend = await startScriptedBackend();
  backend.setFallback({ kind: "json", body: completion({ content: "ok" }) });
});
afterEach(() => backend.close());

/** Rejects when `promise` has not settled within `ms` of real time: a bound for a failure, never a wait. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let settled = false;
  const done = () => void (settled = true);
  promise.then(done, done);
  await holds(() => settled, `${what} did not happen within ${ms} ms`, ms);
  return promise;
}

/** Lets pending promise callbacks and I/O run until `ready` holds (bounded by the test timeout). */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setImmediate(resolve));
}

describe("request_options values against a select descriptor", () => {
  let server: RunnerServer;
  beforeEach(async () => {
    server = await startRunnerServer(
      backend,
      {},
      { request_options_ui: { reasoning_effort: { type: "select", options: ["low", "high"], rich_ui: true } } },
    );
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
    const res = await server.request({
      method: "POST",
      url: `/sessions/${sid}/send`,
      payload: { content: "hi", request_options: { reasoning_effort: value } },
    });
    expect([res.status, res.json?.error?.code], res.text).toEqual([400, "invalid_input"]);
    expect(res.json.error.message).toContain("request_options.reasoning_effort");
    expect(res.json.error.message).toContain("low, high");
    expect(JSON.stringify(res.json.error)).toContain("body.request_options");
    expect(server.runtime.ctx.events.latestId).toBe(before);
    expect(completionBodies(backend)).toHaveLength(0);
  });

  it("sends an allowed string as it is", async () => {
    const sid = await createSession(server);
    const rid = await send(server, sid, {
      content: "hi",
      stream: false,
      request_options: { reasoning_effort: "high" },
    });
    await waitForEvent(server, rid);
    expect((completionBodies(backend)[0] as Record<string, unknown>).reasoning_effort).toBe("high");
  });

  it("a configured value must be an allowed string too (not coerced)", () => {
    const ui = { reasoning_effort: { type: "select", options: ["low"] } };
    for (const value of [["low"], { toString: 1 }, 1]) {
      expect(() =>
        parseConfig({
          providers: {
            p: {
              provider: "reference_compatible",
              model: "m",
              request_options: { reasoning_effort: value },
              request_options_ui: ui,
            },
          },
        }),
      ).toThrow("config error at providers.p.request_options.reasoning_effort");
    }
  });
});

describe("config keys named like Object.prototype members", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({
      providers: {
        local: {
          provider: "reference_compatible",
          model: "m",
          base_url: backend.url,
          endpoint_options: { primary: backend.url },
        },
      },
    });
  });
  afterEach(() => server.close());

  it.each(["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"])(
    "?endpoint=%s is 400 unknown_endpoint",
    async (label) => {
      const res = await server.request({ method: "GET", url: `/providers/local/models?endpoint=${label}` });
      expect([res.status, res.json?.error?.code], res.text).toEqual([400, "unknown_endpoint"]);
      expect(res.json.error.message).toContain("endpoint_options has primary");
    },
  );

  it("selectEndpoint refuses them without endpoint_options too, and a label that is set still works", () => {
    const bare = providerSettingsSchema.parse({ provider: "reference_compatible", model: "m" });
    expect(() => selectEndpoint(bare, "constructor")).toThrow(
      'unknown endpoint "constructor"; endpoint_options has no labels',
    );
    const withLabels = providerSettingsSchema.parse({
      provider: "reference_compatible",
      model: "m",
      endpoint_options: { toString: "http://127.0.0.1:1/v1" },
    });
    expect(selectEndpoint(withLabels, "toString").base_url).toBe("http://127.0.0.1:1/v1");
  });

  it("a descriptor named like a prototype member is not given the member as its value", async () => {
    // Neither config nor a request sets `toString`: Object.prototype.toString is not a value to check.
    const config = {
      provider: "reference_compatible" as const,
      model: "m",
      base_url: backend.url,
      request_options_ui: { toString: { type: "select" as const, options: ["a"] } },
    };
    expect(() => parseConfig({ providers: { p: config } })).not.toThrow();
    const other = await startTestServer({ providers: { p: config } }, { configDir: FIXTURES });
    try {
      const sid = (await other.request({ method: "POST", url: "/sessions", payload: {} })).json.session.id as string;
      const res = await other.request({
        method: "POST",
        url: `/sessions/${sid}/send`,
        payload: { content: "hi", stream: false, request_options: { temperature: 0.2 } },
      });
      expect(res.status, res.text).toBe(202);
      await waitForEvent(other, res.json.request_id as string);
    } finally {
      await other.close();
    }
  });
});

describe("a cancel while queued behind pacing", () => {
  it("ends the request at once, while the caller ahead still sleeps; the queue keeps its order", async () => {
    // Sleeps from 1 s up are held until the test fires them: the 5 s pacing waits stay pending.
    const clock = new TestClock(1000);
    const server = await startTestServer(
      {
        providers: {
          default: {
            provider: "reference_compatible",
            model: "scripted",
            base_url: backend.url,
            min_request_interval_seconds: 5,
          },
        },
      },
      { clock, configDir: FIXTURES },
    );
    try {
      const [a, b, c] = [await createSession(server), await createSession(server), await createSession(server)];
      const ra = await send(server, a, { content: "A", stream: false });
      await waitForEvent(server, ra);
      const rb = await send(server, b, { content: "B", stream: false });
      await until(() => clock.heldCount === 1); // B sleeps its 5 s
      const rc = await send(server, c, { content: "C", stream: false });
      const cancel = await server.request({ method: "POST", url: `/sessions/${c}/requests/${rc}/cancel`, payload: {} });
      expect(cancel.status).toBe(202);
      const events = await within(waitForEvent(server, rc), 2000, "request_completed of the cancelled request");
      expect(typesOf(events).slice(-2)).toEqual(["request_cancelled", "request_completed"]);
      expect(clock.heldCount).toBe(1); // B has not been let through
      expect(server.runtime.ctx.runner.activeRequest(c)).toBeUndefined();

      // The session is free again; its new request queues behind B.
      const rc2 = await send(server, c, { content: "C2", stream: false });
      expect(clock.fireHeld(5000)).toBe(1);
      await waitForEvent(server, rb);
      await until(() => clock.heldCount === 1); // C2 sleeps 5 s after B's start
      expect(clock.fireHeld(5000)).toBe(1);
      await waitForEvent(server, rc2);
      const order = completionBodies(backend).map((body) => (body.messages.at(-1) as { content: string }).content);
      expect(order).toEqual(["A", "B", "C2"]);
      expect(eventsOf(server, rb).some((e) => e.type === "error")).toBe(false);
    } finally {
      await server.close();
    }
  });

  it("PacingRegistry: an aborted waiter leaves at once, the others start in order, no listener or turn is left", async () => {
    const clock = new TestClock(1000);
    const pacing = new PacingRegistry();
    const url = "http://pacing.test/v1";
    const order: string[] = [];
    const acquire = (name: string, signal: AbortSignal) =>
      pacing.acquire(url, 5, clock, signal).then(
        () => void order.push(name),
        () => void order.push(`${name}:aborted`),
      );
    await acquire("A", new AbortController().signal);
    const signals = { B: new AbortController(), C: new AbortController(), D: new AbortController() };
    const b = acquire("B", signals.B.signal);
    await until(() => clock.heldCount === 1);
    const c = acquire("C", signals.C.signal);
    const d = acquire("D", signals.D.signal);
    signals.C.abort();
    await within(c, 2000, "the aborted waiter leaving");
    expect(order).toEqual(["A", "C:aborted"]);
    expect(getEventListeners(signals.C.signal, "abort")).toHaveLength(0);

    clock.fireHeld(5000);
    await b;
    await until(() => clock.heldCount === 1); // D waits a full interval after B
    clock.fireHeld(5000);
    await d;
    expect(order).toEqual(["A", "C:aborted", "B", "D"]);

    // A waiter whose turn needs no sleep keeps no abort listener; then the scope is idle (fast path, no wait).
    const e = new AbortController();
    const f = new AbortController();
    const pe = acquire("E", e.signal);
    await until(() => clock.heldCount === 1);
    const pf = acquire("F", f.signal);
    clock.t += 60_000; // long past every interval
    e.abort();
    await pe;
    await pf;
    expect(getEventListeners(f.signal, "abort")).toHaveLength(0);
    clock.t += 10_000;
    const waits = clock.waits.length;
    await within(acquire("G", new AbortController().signal), 2000, "an idle scope letting G through");
    expect(order.slice(-3)).toEqual(["E:aborted", "F", "G"]);
    expect(clock.waits.length).toBe(waits);
    expect(clock.heldCount).toBe(0);
  });
});
