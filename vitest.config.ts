import { readdirSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { runsIsolated } from "./test/support/isolation.ts";
import { ChromiumFirstSequencer } from "./test/support/sequencer.ts";

const root = import.meta.dirname;
const files = readdirSync(`${root}/test`, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => `test/${file}`);
const isolated = files.filter((file) => runsIsolated(root, file));

export default defineConfig({
  test: {
    // The app tests load app/dist in Chromium: build it once, before the files run in parallel.
    globalSetup: ["test/app/support/build-once.ts"],
    // Suites start real servers, bridges and SQLite files; two cores are the budget.
    pool: "forks",
    maxWorkers: 2,
    // Without a cache of durations (a fresh clone), the Chromium files first: see the sequencer.
    sequence: { sequencer: ChromiumFirstSequencer },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Most files share their worker's modules (the server's runtime imported once per worker, not once per file);
    // a file that leaves state behind in its worker runs in a fresh one: test/support/isolation.ts.
    projects: [
      { extends: true, test: { name: "isolated", include: isolated } },
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: isolated, isolate: false } },
    ],
  },
});
