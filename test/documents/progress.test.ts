// How often a document's reading is reported (docs/documents.md "Reading"): each report is a `document_updated` event
// the bridge keeps for replay, so at most once a second and per 5% of the pages, and never for the last page (the end
// is always published, with the status). The clock is a number the test moves.
import { describe, expect, it } from "vitest";
import { progressGate } from "../../server/documents/progress.ts";

describe("document progress", () => {
  it("D7 a report needs a second and 5% of the pages since the last; the last page is never a report", () => {
    let now = 0;
    const worth = progressGate(200, () => now);
    expect(worth(9)).toBe(false); // 4.5% of the pages
    expect(worth(10)).toBe(true); // 5%, and no report before
    now = 500;
    expect(worth(30)).toBe(false); // 10% more, but half a second after
    now = 1000;
    expect(worth(19)).toBe(false); // a second after, but 9 pages since the last report
    expect(worth(20)).toBe(true); // 10 pages: 5%
    now = 60_000;
    expect(worth(29)).toBe(false); // a minute after, 9 pages
    expect(worth(30)).toBe(true);
    now = 120_000;
    expect(worth(200)).toBe(false); // the end is published with the status, not as progress
  });

  it("D8 over a long read, reports stay within one a second and twenty in all", () => {
    let now = 0;
    const pages = 10_000;
    const worth = progressGate(pages, () => now);
    const reports: Array<{ at: number; done: number }> = [];
    for (let done = 1; done <= pages; done++) {
      now += 7; // a page every 7 ms: 70 s in all
      if (worth(done)) reports.push({ at: now, done });
    }
    expect(reports.length).toBeGreaterThan(10);
    expect(reports.length).toBeLessThanOrEqual(20);
    reports.slice(1).forEach((report, i) => {
      expect(report.at - reports[i]!.at).toBeGreaterThanOrEqual(1000);
      expect(report.done - reports[i]!.done).toBeGreaterThanOrEqual(pages / 20);
    });
  });
});
