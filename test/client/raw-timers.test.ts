// Time in the client library goes through one interface (docs/client.md "Time", C171): `Timers` in
// client/util/timers.ts, injected everywhere a delay, a timeout or "now" is decided, so tests move time by hand. This
// finds any raw timer or clock read elsewhere in client/: a bare or globalThis setTimeout/setInterval (and their
// clears), Date.now(), performance.now(), `new Date()` without an argument. Calls on an injected Timers
// (`timers.setTimeout(`) are members, not raw.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, ROOT } from "../errors/source-scan.ts";

/** The one module allowed to touch the platform's clock and timers. */
const CLOCK_MODULE = "client/util/timers.ts";

const RAW_TIME = [
  /(?<![.\w])(?:setTimeout|setInterval|clearTimeout|clearInterval|setImmediate)\s*\(/,
  /\bglobalThis\.(?:setTimeout|setInterval|clearTimeout|clearInterval|setImmediate)\b/,
  /\bDate\.now\s*\(/,
  /\bperformance\.now\s*\(/,
  /\bnew Date\(\s*\)/,
];

/** The source without comments (a comment may name setTimeout), line breaks kept for line numbers. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

function rawTimers(file: string, text: string): string[] {
  return code(text)
    .split("\n")
    .flatMap((line, index) =>
      RAW_TIME.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
    );
}

describe("time in the client library", () => {
  it("finds raw timers where they are (the patterns work)", () => {
    const planted = [
      "setTimeout(run, 5);",
      "const t = globalThis.setInterval(tick, 1000);",
      "const at = Date.now();",
      "new Date()",
      "performance.now()",
    ];
    expect(planted.map((line) => rawTimers("planted.ts", line).length)).toEqual([1, 1, 1, 1, 1]);
    expect(rawTimers("fine.ts", "this.timers.setTimeout(run, 5); // setTimeout(x)\nnew Date(iso)")).toEqual([]);
    expect(rawTimers(CLOCK_MODULE, readFileSync(join(ROOT, CLOCK_MODULE), "utf8")).length).toBeGreaterThan(0);
  });

  it("reads the clock and sets timers only through Timers (client/util/timers.ts)", () => {
    const files = filesUnder("client", ".ts").filter((file) => file !== CLOCK_MODULE);
    expect(files.length).toBeGreaterThan(40);
    expect(files.flatMap((file) => rawTimers(file, readFileSync(join(ROOT, file), "utf8")))).toEqual([]);
  });
});
