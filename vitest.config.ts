import { defineConfig } from "vitest/config";
import { ChromiumFirstSequencer } from "./test/support/sequencer.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The app tests load app/dist in Chromium: build it once, before the files run in parallel.
    globalSetup: ["test/app/support/build-once.ts"],
    // Suites start real servers, bridges and SQLite files; two cores are the budget.
    pool: "forks",
    maxWorkers: 2,
    // Without a cache of durations (a fresh clone), the Chromium files first: see the sequencer.
    sequence: { sequencer: ChromiumFirstSequencer },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
