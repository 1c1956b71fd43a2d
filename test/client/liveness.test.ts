// Liveness of the bridge link (issue 14, docs/client.md "Liveness", C70-C72): a link whose packets are dropped
// without a close is noticed within 15 s with the library's defaults on the injected timers (before: phoenix's
// 30 s heartbeat kept it "live" for ~51 s), the feed goes on over HTTP meanwhile, and the app is live again once
// the link passes bytes. The reconnect schedule is quick first, then a jittered backoff capped at 5 s.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { DEFAULT_LIVENESS, ManualTimers, RECONNECT_MAX_MS, reconnectDelayMs } from "../../client/util/timers.ts";
import { CuttableProxy } from "./support/proxy.ts";
import { FAST_RECONNECT, until, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

/** Moves the injected timers by `ms` in 250 ms steps, letting what each step started run a turn before the next. */
async function advance(timers: ManualTimers, ms: number): Promise<void> {
  for (let moved = 0; moved < ms; moved += 250) {
    timers.advance(250);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("a dead bridge link", () => {
  it("is noticed within 15 s of injected time with the default timings, HTTP carries the feed, and the app is live again when bytes pass (C70)", async () => {
    expect(DEFAULT_LIVENESS.intervalMs + DEFAULT_LIVENESS.timeoutMs).toBeLessThanOrEqual(15_000);
    const stack = await scope.start();
    const credentials = await stack.pair();
    const s = stack;
    const proxy = scope.own(await CuttableProxy.start(() => s.bridgePort));
    const timers = new ManualTimers();
    const client = scope.own(
      connect({ ...credentials, bridge_url: proxy.url }, { ...FAST_RECONNECT, timers, pollWaitMs: 1000 }),
    );
    const heard: AnyEvent[] = [];
    client.on("*", (event) => heard.push(event));
    await untilLive(client);

    proxy.blackhole();
    await advance(timers, 15_000);
    expect(client.status.get().state).toBe("polling");

    const sessionId = await stack.createSession();
    await stack.append(sessionId, "while the link is dead");
    await until(
      () => heard.some((event) => event.type === "message_appended"),
      "the event over HTTP while the bridge link is dead",
    );

    proxy.restore();
    await untilLive(client);
    await stack.append(sessionId, "back on the bridge");
    await until(() => heard.filter((event) => event.type === "message_appended").length === 2, "the next event live");
  });
});

describe("the reconnect schedule (C71)", () => {
  it("retries at most 1 s apart for the first ~15 s, then backs off with jitter, never more than 5 s apart", () => {
    const quick = Array.from({ length: 18 }, (_, i) => reconnectDelayMs(i + 1, () => 1));
    expect(quick.slice(0, 4)).toEqual([50, 100, 250, 500]);
    expect(Array.from({ length: 4 }, (_, i) => reconnectDelayMs(i + 1, () => 0))).toEqual([25, 50, 125, 250]);
    expect(Math.max(...quick)).toBeLessThanOrEqual(1000);
    expect(quick.reduce((sum, delay) => sum + delay, 0)).toBeGreaterThanOrEqual(14_000);
    const slowHigh = [19, 20, 21, 22, 40, 10_000].map((tries) => reconnectDelayMs(tries, () => 1));
    const slowLow = [19, 20, 21, 22, 40, 10_000].map((tries) => reconnectDelayMs(tries, () => 0));
    expect(slowHigh).toEqual([2000, 4000, 5000, 5000, 5000, 5000]);
    expect(slowLow).toEqual([1000, 2000, 2500, 2500, 2500, 2500]);
    expect(RECONNECT_MAX_MS).toBe(5000);
  });
});
