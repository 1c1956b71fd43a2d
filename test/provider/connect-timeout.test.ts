// `timeout` bounds a connect that hangs (docs/provider.md "Retry rules" 4: timeouts cover connect and read), and a cancel ends a
// connecting attempt at once, in stream and stream:false modes. The peer is a loopback listener whose accept queue
// is full (hanging-listener.ts), so the connect gets no answer, as against a host that drops SYNs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../server/clock.ts";
import { TestClock, makeProvider, settingsFor } from "./helpers.ts";
import { startHangingListener, type HangingListener } from "./hanging-listener.ts";

let listener: HangingListener;
beforeAll(async () => {
  listener = await startHangingListener();
});
afterAll(() => listener.close());

const TIMEOUT_S = 30; // held by TestClock (>= 20 s), so only the test fires it

describe.each([true, false])("a connect that hangs (stream: %s)", (stream) => {
  it("times out on the clock's `timeout`, so retry_on_timeout fires, then raises `timeout`", async () => {
    const clock = new TestClock();
    const { run } = makeProvider(settingsFor(listener.url, { timeout: TIMEOUT_S, retry_on_timeout: [1] }), { clock });
    const result = run({ stream });
    for (let attempt = 0; attempt < 2; attempt++) {
      await clock.whenHeld();
      clock.fireHeld(TIMEOUT_S * 1000);
    }
    const { deltas, error } = await result;
    expect(deltas).toEqual([{ type: "retry", attempt: 0, reason: "timeout", delay_ms: 1000 }]);
    expect(error?.code).toBe("timeout");
  });

  it("a cancel ends the connecting attempt at once and disarms its deadline", async () => {
    const clock = new TestClock();
    const { run } = makeProvider(settingsFor(listener.url, { timeout: TIMEOUT_S }), { clock });
    const controller = new AbortController();
    const result = run({ stream, signal: controller.signal });
    await clock.whenHeld();
    controller.abort();
    const { deltas, error } = await result;
    expect(deltas).toEqual([]);
    expect(error?.code).toBe("aborted");
    expect(clock.heldCount).toBe(0);
  });
});

describe("on the real clock", () => {
  it("a hanging connect with timeout 0.5 ends in `timeout` (not the kernel's two minutes)", async () => {
    const { run } = makeProvider(settingsFor(listener.url, { timeout: 0.5 }), { clock: systemClock });
    const { error } = await run();
    expect(error?.code).toBe("timeout");
  });
});
