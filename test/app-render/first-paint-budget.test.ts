// The first paint's budget (docs/app.md "Speed", SU1): the JS and CSS index.html loads before the app runs weigh at most
// 120 KiB gzipped (-9), counted by the one function the app benchmark prints it with. It reads app/dist as the test
// run's global setup built it (build-once.ts), the same build the benchmarks load; no browser. And what it leaves out:
// phoenix, fetched when the device first opens its socket to the bridge (SU8). The entry and the markdown renderer's
// chunks start with V8's compile hint, the other lazy chunks do not (SU18, SU20).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { APP_DIST } from "../../scripts/build-app.ts";
import { FIRST_LOAD_BUDGET_BYTES, firstLoadBytes, firstLoadFiles } from "../../scripts/bench/first-load.ts";

const COMPILE_ALL_HINT = "//# allFunctionsCalledOnLoad";

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

  it("SU18, SU20: the entry and the renderer's chunks start with V8's compile hint, the other lazy chunks do not", () => {
    const hinted = (name: string) => readFileSync(join(APP_DIST, "assets", name), "utf8").startsWith(COMPILE_ALL_HINT);
    const scripts = firstLoadFiles(APP_DIST).filter(({ file }) => file.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(0);
    for (const { file } of scripts)
      expect(readFileSync(join(APP_DIST, file), "utf8").split("\n", 1)[0], file).toBe(COMPILE_ALL_HINT);
    // The renderer's chunk (markdown.ts) and the chunks it imports (markdown-it), loaded when the app is idle (SU19).
    const renderer = readdirSync(join(APP_DIST, "assets")).find((name) => /^markdown-.*\.js$/.test(name));
    expect(renderer).toBeDefined();
    const imported = [...readFileSync(join(APP_DIST, "assets", renderer!), "utf8").matchAll(/from"\.\/([^"]+\.js)"/g)];
    const rendererChunks = [renderer!, ...imported.map((match) => match[1]!)];
    expect(rendererChunks.length).toBeGreaterThan(1);
    for (const name of rendererChunks) expect(hinted(name), name).toBe(true);
    // The others: a chunk loaded on first use runs little of itself, and compiled whole would cost more than it saves.
    const lazy = readdirSync(join(APP_DIST, "assets")).filter(
      (name) =>
        name.endsWith(".js") && !scripts.some(({ file }) => file.endsWith(name)) && !rendererChunks.includes(name),
    );
    expect(lazy.length).toBeGreaterThan(0);
    for (const name of lazy) expect(hinted(name), name).toBe(false);
  });

  it("leaves phoenix out: a chunk of its own, fetched on the first connection (SU8)", () => {
    // A string of phoenix's own code (channel.js), kept by any minifier: the message of a push before the join.
    const carriesPhoenix = (file: string) =>
      readFileSync(join(APP_DIST, file), "utf8").includes("Use channel.join() before pushing events");
    const entry = firstLoadFiles(APP_DIST).filter(({ file }) => file.endsWith(".js"));
    expect(entry.length).toBeGreaterThan(0);
    expect(entry.filter(({ file }) => carriesPhoenix(file)).map(({ file }) => file)).toEqual([]);
    // Not vacuous: the build does hold phoenix, in a chunk the entry does not load.
    const chunks = readdirSync(join(APP_DIST, "assets")).filter((name) => name.endsWith(".js"));
    expect(chunks.filter((name) => carriesPhoenix(join("assets", name)))).toHaveLength(1);
  });
});
