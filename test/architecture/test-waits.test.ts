// Tests wait on events, not time (docs/testing.md "Waiting"): at most 5 real-time sleeps in test/, each one listed
// here with why it is not on a clock, counted by scripts/count-sleeps.ts.
import { expect, it } from "vitest";
import { realTimeSleeps, sleepsIn } from "../../scripts/count-sleeps.ts";

/** The sleeps left, by file, each with its reason; a new one fails the test, and so does one no longer there. */
const ALLOWED: Record<string, string> = {
  "test/bridge/clock.test.ts": "tests the real clock itself, against real time",
  "test/client/transport-choice.test.ts":
    "the bridge answers long-polls on its own real clock while the client's timers move by hand",
  "test/provider/stream-limits.test.ts": "a backend that ends its body shortly after [DONE], in a read of its own",
};

it("keeps real-time sleeps in test/ at 5 or fewer, each one known", () => {
  const found = realTimeSleeps();
  expect(found.length).toBeLessThanOrEqual(5);
  const files = [...new Set(found.map((at) => at.replace(/:\d+: .*$/, "")))];
  expect(files.filter((file) => !(file in ALLOWED))).toEqual([]);
  expect(Object.keys(ALLOWED).filter((file) => !files.includes(file))).toEqual([]);
});

it("counts what is a real-time sleep and leaves out what is on a clock, in a comment or in a string", () => {
  const text = [
    'import { setTimeout as pause } from "node:timers/promises";',
    "await new Promise((resolve) => setTimeout(resolve, 5));",
    "await pause(10);",
    "await page.waitForTimeout(100);",
    "await sleep(20);",
    "await systemClock.sleep(5);",
    "await clock.sleep(60_000);",
    "timers.timer(5, run);",
    "// setTimeout(run, 5)",
    'const text = "sleep(5)";',
    "const note = `then ${setTimeout(run, 1)} runs`;",
    "  sleep(ms: number): Promise<void> {",
  ].join("\n");
  expect(sleepsIn(text).map((sleep) => sleep.line)).toEqual([2, 3, 4, 5, 6, 11]);
});
