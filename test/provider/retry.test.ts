// Pre-stream retries, timeouts, the idle timeout and stream recovery (docs/provider.md "Retry rules"), on a TestClock.
import { getEventListeners } from "node:events";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { chunk, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { parseRetryAfter } from "../../server/provider/retry.ts";
import { systemClock } from "../../server/clock.ts";
import { TestClock, collect, contentOf, makeProvider, settingsFor, user } from "./helpers.ts";
import type { ProviderSettingsInput } from "../../server/provider/settings.ts";
import type { ProviderDelta } from "../../server/provider/types.ts";

let backend: ScriptedBackend;
beforeAll(async () => {
  backend = await startScriptedBackend();
});
afterAll(() => backend.close());
beforeEach(() => backend.reset());

const TIMEOUT_S = 30; // held by TestClock (>= 20 s), so only the test fires it
const okStream = (text = "ok") =>
  ({ kind: "stream", parts: [{ data: chunk({ content: text }) }, { data: chunk({}, "stop") }] }) as const;

describe("pre-stream retries", () => {
  it("retry rule 5 example: 500=[2,5,8], timeout=[1,3,5]: waits 2s, 3s, 8s, then the 4th failure (a timeout) raises", async () => {
    const clock = new TestClock();
    const fire = () => queueMicrotask(() => clock.fireHeld(TIMEOUT_S * 1000));
    backend.script(
      { kind: "status", status: 500 },
      { kind: "hang", onReceived: fire },
      { kind: "status", status: 500 },
      { kind: "hang", onReceived: fire },
    );
    const before = backend.requests.length;
    const settings = settingsFor(backend.url, {
      timeout: TIMEOUT_S,
      retry_on_status: { "500": [2, 5, 8] },
      retry_on_timeout: "1, 3, 5",
    });
    const result = await makeProvider(settings, { clock }).run();
    expect(clock.waits).toEqual([2000, 3000, 8000]);
    expect(result.deltas).toEqual([
      { type: "retry", attempt: 0, reason: "status", status: 500, delay_ms: 2000 },
      { type: "retry", attempt: 1, reason: "timeout", delay_ms: 3000 },
      { type: "retry", attempt: 2, reason: "status", status: 500, delay_ms: 8000 },
    ]);
    expect(result.error?.code).toBe("timeout");
    expect(backend.requests.length - before).toBe(4);
  });

  it("429: waits the larger of Retry-After and the configured delay; seconds, HTTP dates and retry-after-ms", async () => {
    const clock = new TestClock();
    const date = new Date(clock.now() + 7000).toUTCString();
    backend.script(
      { kind: "status", status: 429, headers: { "retry-after": "4" } },
      { kind: "status", status: 429, headers: { "retry-after": date } },
      { kind: "status", status: 429, headers: { "retry-after-ms": "1500" } },
      okStream(),
    );
    const settings = settingsFor(backend.url, { rate_limit_retry_delays_seconds: [1, 1, 2] });
    const result = await makeProvider(settings, { clock }).run();
    expect(result.done?.message.content).toBe("ok");
    // 4 s > 1 s; the date is an absolute time; 2 s > 1.5 s.
    expect(clock.waits[0]).toBe(4000);
    expect(clock.waits[1]).toBe(3000); // the date is 7 s after the start; 4 s have passed

    expect(clock.waits[2]).toBe(2000);
  });

  it("429 with respect_retry_after_header false uses the configured delay; without a list it raises at once", async () => {
    const clock = new TestClock();
    backend.script({ kind: "status", status: 429, headers: { "retry-after": "9" } }, okStream(), {
      kind: "status",
      status: 429,
    });
    const settings = settingsFor(backend.url, {
      rate_limit_retry_delays_seconds: [1],
      respect_retry_after_header: false,
    });
    expect((await makeProvider(settings, { clock }).run()).done).toBeDefined();
    expect(clock.waits).toEqual([1000]);
    const none = await makeProvider(settingsFor(backend.url), { clock }).run();
    expect(none.error?.code).toBe("rate_limited");
    expect(none.error?.status).toBe(429);
  });

  it("parses Retry-After forms", () => {
    expect(parseRetryAfter("120", undefined, 0)).toBe(120_000);
    expect(parseRetryAfter(undefined, "250", 0)).toBe(250);
    expect(
      parseRetryAfter("Wed, 21 Oct 2015 07:28:10 GMT", undefined, Date.parse("Wed, 21 Oct 2015 07:28:00 GMT")),
    ).toBe(10_000);
    expect(parseRetryAfter("soon", undefined, 0)).toBeUndefined();
  });

  it("a status not configured propagates with its body; a configured one is retried without reading the body", async () => {
    const clock = new TestClock();
    backend.script({ kind: "status", status: 503, body: { error: { message: "warming up" } } }, okStream());
    const settings = settingsFor(backend.url, { retry_on_status: { "503": [0.5] } });
    expect((await makeProvider(settings, { clock }).run()).done?.message.content).toBe("ok");
    backend.script({ kind: "status", status: 503, body: { error: { message: "still warming" } } });
    const failed = await makeProvider(settingsFor(backend.url), { clock }).run();
    expect(failed.error?.status).toBe(503);
    expect(failed.error?.message).toContain("still warming");
  });

  it("timeout covers a slow first byte (headers sent, no body); with no retry list it propagates at once", async () => {
    const clock = new TestClock();
    backend.script({
      kind: "hang",
      sendHeaders: true,
      onReceived: () => setImmediate(() => clock.fireHeld(TIMEOUT_S * 1000)),
    });
    const result = await makeProvider(settingsFor(backend.url, { timeout: TIMEOUT_S }), { clock }).run();
    expect(result.error?.code).toBe("timeout");
    expect(result.deltas).toEqual([]);
  });
});

describe("streaming timeouts and recovery", () => {
  const contentPart = (text: string) => ({ data: chunk({ content: text }) });
  const reasoningPart = (text: string) => ({ data: chunk({ reasoning: text }) });
  /** Runs a completion; on the first delta of `type` the paused stream is broken (destroy) or left silent (idle). */
  async function runBreaking(
    extra: Partial<ProviderSettingsInput>,
    breakOn: ProviderDelta["type"],
    how: "destroy" | "idle",
    times = 1,
    clock = new TestClock(),
  ) {
    const { provider } = makeProvider(settingsFor(backend.url, extra), { clock });
    let broken = 0;
    return collect(
      provider.complete({ messages: [user("hi")], stream: true, signal: new AbortController().signal }),
      async (delta) => {
        if (delta.type !== breakOn || broken >= times) return;
        const control = await backend.nextPause();
        broken += 1;
        if (how === "destroy") control.destroy();
        else {
          clock.fireHeld(45_000);
          control.destroy(); // frees the server side once the client has given up
        }
      },
    ).then((result) => ({ ...result, broken }));
  }

  it("a stream that goes silent after it began ends with stream_idle_timeout (recovery disabled)", async () => {
    backend.script({ kind: "stream", parts: [contentPart("partial"), contentPart(" more")], pauseAfter: 1 });
    const result = await runBreaking({ stream_idle_timeout_seconds: 45 }, "content", "idle");
    expect(result.error?.code).toBe("stream_idle_timeout");
    expect(result.error?.message).toContain("stream_recovery is disabled");
  });

  it("early_only recovers a drop before any visible content and re-issues the full request", async () => {
    const before = backend.requests.length;
    backend.script(
      { kind: "stream", parts: [reasoningPart("thinking"), contentPart("x")], pauseAfter: 1 },
      okStream("fresh"),
    );
    const result = await runBreaking({ stream_recovery: { mode: "early_only" } }, "reasoning", "destroy");
    expect(result.error).toBeUndefined();
    expect(result.deltas.find((d) => d.type === "recovery")).toMatchObject({
      type: "recovery",
      attempt: 1,
      mode: "early_only",
      content_emitted: false,
    });
    expect(result.done?.message.content).toBe("fresh");
    expect(result.done?.message.metadata.reasoning).toBeUndefined();
    expect(backend.requests.length - before).toBe(2);
    expect(backend.requests[before + 1]!.body).toEqual(backend.requests[before]!.body);
  });

  it("early_only does not recover once content was shown", async () => {
    backend.script({ kind: "stream", parts: [contentPart("Hel"), contentPart("lo")], pauseAfter: 1 });
    const result = await runBreaking({ stream_recovery: { mode: "early_only" } }, "content", "destroy");
    expect(result.error?.code).toBe("stream_interrupted");
    expect(result.error?.message).toContain("early_only");
  });

  it("aggressive recovers after partial content; the replay may duplicate what was shown", async () => {
    backend.script(
      { kind: "stream", parts: [contentPart("Hel"), contentPart("lo")], pauseAfter: 1 },
      okStream("Hello"),
    );
    const result = await runBreaking({ stream_recovery: { mode: "aggressive" } }, "content", "destroy");
    expect(result.error).toBeUndefined();
    expect(contentOf(result)).toBe("HelHello");
    expect(result.deltas.find((d) => d.type === "recovery")).toMatchObject({
      mode: "aggressive",
      content_emitted: true,
    });
    expect(result.done?.message.content).toBe("Hello");
  });

  it("max_retries bounds recovery with its own counter", async () => {
    const paused = { kind: "stream", parts: [contentPart("a"), contentPart("b")], pauseAfter: 1 } as const;
    backend.script(paused, paused, paused);
    const result = await runBreaking(
      { stream_recovery: { mode: "aggressive", max_retries: 2 }, retry_on_status: { "500": [1] } },
      "content",
      "destroy",
      3,
    );
    expect(result.broken).toBe(3);
    expect(result.deltas.filter((d) => d.type === "recovery").map((d) => (d as { attempt: number }).attempt)).toEqual([
      1, 2,
    ]);
    expect(result.error?.code).toBe("stream_interrupted");
    expect(result.error?.message).toContain("max_retries");
  });

  it("the caller's abort ends a stream with an aborted error", async () => {
    backend.script({ kind: "stream", parts: [contentPart("a"), contentPart("b")], pauseAfter: 1 });
    const controller = new AbortController();
    const { provider } = makeProvider(settingsFor(backend.url));
    const result = await collect(
      provider.complete({ messages: [user("hi")], stream: true, signal: controller.signal }),
      () => controller.abort(),
    );
    expect(result.error?.code).toBe("aborted");
    (await backend.nextPause()).destroy();
  });
});

describe("the caller's signal", () => {
  it("keeps no abort listener once a completion is over (retries, a stream, a JSON body, a recovered drop)", async () => {
    const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;
    const settings = settingsFor(backend.url, {
      rate_limit_retry_delays_seconds: [1, 1],
      retry_on_status: { "500": [1, 1] },
      stream_recovery: { mode: "early_only", max_retries: 1 },
    });
    const { provider } = makeProvider(settings);
    const run = async (stream: boolean) => {
      const controller = new AbortController();
      const result = await collect(provider.complete({ messages: [user("hi")], stream, signal: controller.signal }));
      return { result, left: listeners(controller.signal) };
    };

    backend.script({ kind: "status", status: 429 }, { kind: "status", status: 500 }, okStream("streamed"));
    const streamed = await run(true);
    expect(streamed.result.done?.message.content).toBe("streamed");
    expect(streamed.left).toBe(0);

    backend.script({
      kind: "json",
      body: { choices: [{ message: { role: "assistant", content: "whole" }, finish_reason: "stop" }] },
    });
    const whole = await run(false);
    expect(whole.result.done?.message.content).toBe("whole");
    expect(whole.left).toBe(0);

    backend.script(
      { kind: "stream", parts: [{ data: chunk({ reasoning: "thinking" }) }], destroyAfter: 1 },
      okStream("recovered"),
    );
    const recovered = await run(true);
    expect(recovered.result.deltas.some((d) => d.type === "recovery")).toBe(true);
    expect(recovered.result.done?.message.content).toBe("recovered");
    expect(recovered.left).toBe(0);
  });
});

describe("on the real clock (its timers are plain setTimeout)", () => {
  it("a slow first byte ends in a timeout, a silent begun stream in stream_idle_timeout", async () => {
    backend.script({ kind: "hang", sendHeaders: true });
    const slow = await makeProvider(settingsFor(backend.url, { timeout: 0.15 }), { clock: systemClock }).run();
    expect(slow.error?.code).toBe("timeout");

    backend.script({
      kind: "stream",
      parts: [{ data: chunk({ content: "a" }) }, { data: chunk({ content: "b" }) }],
      pauseAfter: 1,
    });
    const started = performance.now();
    const silent = await makeProvider(settingsFor(backend.url, { timeout: 5, stream_idle_timeout_seconds: 0.15 }), {
      clock: systemClock,
    }).run();
    expect(silent.error?.code).toBe("stream_idle_timeout");
    expect(contentOf(silent)).toBe("a");
    expect(performance.now() - started).toBeLessThan(4000); // the idle timer, not the 5 s timeout, ended it
    (await backend.nextPause()).destroy();
  });
});
