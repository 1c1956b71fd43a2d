// The first paint's budget (docs/app.md "Speed", SU1): the JS and CSS index.html loads before the app runs weigh at most
// 120 KiB gzipped (-9), counted by the one function the app benchmark prints it with. It reads app/dist as the test
// run's global setup built it (build-once.ts), the same build the benchmarks load; no browser.
import { describe, expect, it } from "vitest";
import { APP_DIST } from "../../scripts/build-app.ts";
import { FIRST_LOAD_BUDGET_BYTES, firstLoadBytes, firstLoadFiles } from "../../scripts/bench/first-load.ts";

describe("the first paint", () => {
  it("loads an entry script and its stylesheet, within 120 KiB gzipped together", () => {
    const files = firstLoadFiles(APP_DIST);
    // Not vacuous: the entry script is found (a sum over no file would pass any budget).
    expect(files.some(({ file }) => file.endsWith(".js"))).toBe(true);
    const total = firstLoadBytes(APP_DIST);
    const named = files.map(({ file, gzip_bytes }) => `${file}: ${gzip_bytes} B`).join(", ");
    expect(
      total,
      `first paint ${total} B over the budget of ${FIRST_LOAD_BUDGET_BYTES} B (${named})`,
    ).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_BYTES);
  });
});
