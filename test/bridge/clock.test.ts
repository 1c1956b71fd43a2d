// The bridge's clock (bridge/clock.ts): `after` runs a task once, or never when cancelled, on the real clock's
// cheap timers and on a clock that has only `sleep` (a test's) alike (B160).
import { describe, expect, it } from "vitest";
import { after, systemClock, type Clock } from "../../bridge/clock.ts";
import { ManualClock } from "./manual-clock.ts";

const realSleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("after (B160)", () => {
  it("runs once on the real clock, and never once cancelled", async () => {
    const ran: string[] = [];
    after(systemClock, 5, () => ran.push("kept"));
    const cancel = after(systemClock, 5, () => ran.push("cancelled"));
    cancel();
    cancel(); // a second cancel is harmless
    await realSleep(100);
    expect(ran).toEqual(["kept"]);
  });

  it("the real clock's timers do not hold the process open", () => {
    const handles: NodeJS.Timeout[] = [];
    const original = globalThis.setTimeout;
    globalThis.setTimeout = ((task: () => void, ms: number) => {
      const handle = original(task, ms);
      handles.push(handle);
      return handle;
    }) as typeof setTimeout;
    try {
      after(systemClock, 60_000, () => undefined)();
    } finally {
      globalThis.setTimeout = original;
    }
    expect(handles).toHaveLength(1);
    expect(handles[0]!.hasRef()).toBe(false);
  });

  it("a clock with only sleep runs the task when moved, and never once cancelled", async () => {
    const clock = new ManualClock();
    const sleepOnly: Clock = { now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms, signal) };
    const ran: string[] = [];
    after(sleepOnly, 1000, () => ran.push("kept"));
    after(sleepOnly, 1000, () => ran.push("cancelled"))();
    clock.advance(999);
    await realSleep(0);
    expect(ran).toEqual([]);
    clock.advance(1);
    await realSleep(0);
    expect(ran).toEqual(["kept"]);
  });
});
