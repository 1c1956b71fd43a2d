// The suite's file order (test/support/sequencer.ts, docs/testing.md "The suite's time"): on a fresh clone (no cached
// durations) the files that drive Chromium start first; with a duration cached for every file, vitest's own order
// (longest first) stays.
import { statSync } from "node:fs";
import { join } from "node:path";
import type { TestSpecification } from "vitest/node";
import { expect, it } from "vitest";
import { ChromiumFirstSequencer, drivesChromium } from "../support/sequencer.ts";

const root = join(import.meta.dirname, "..", "..");
const project = { name: "", config: { sequence: { groupOrder: 0 }, isolate: true } };
const FILES = [
  "test/app/transcript.test.ts", // the app's pure transcript reducer: no browser
  "test/app/status.test.ts", // useAppBrowser
  "test/documents/library.test.ts",
  "test/push/service-worker.test.ts", // launchBrowser
];

/** A sequencer over FILES, with vitest's cache holding `durations` (ms by file) and the files' real sizes. */
function sequencer(durations: Record<string, number>, seed?: number): ChromiumFirstSequencer {
  const path = (key: string) => key.replace(/^[^:]*:/, "");
  const cache = {
    getFileTestResults: (key: string) =>
      durations[path(key)] === undefined ? undefined : { duration: durations[path(key)], failed: false },
    getFileStats: (key: string) => ({ size: statSync(join(root, path(key))).size }),
  };
  return new ChromiumFirstSequencer({ config: { root, sequence: { seed } }, cache } as never);
}

async function order(durations: Record<string, number>): Promise<string[]> {
  const specs = FILES.map((file) => ({ project, moduleId: join(root, file) }) as unknown as TestSpecification);
  return (await sequencer(durations).sort(specs)).map((spec) => spec.moduleId.slice(root.length + 1));
}

it("tells the files that drive Chromium from the others by what they use", () => {
  expect(FILES.map((file) => drivesChromium(join(root, file)))).toEqual([false, true, false, true]);
});

it("starts the Chromium files first when durations are not cached (a fresh clone), each group largest first", async () => {
  expect(await order({})).toEqual([
    "test/push/service-worker.test.ts",
    "test/app/status.test.ts",
    "test/documents/library.test.ts",
    "test/app/transcript.test.ts",
  ]);
});

it("keeps vitest's order, longest first, when every file's duration is cached", async () => {
  const durations = {
    "test/documents/library.test.ts": 9_000,
    "test/app/transcript.test.ts": 5,
    "test/app/status.test.ts": 4_000,
    "test/push/service-worker.test.ts": 12_000,
  };
  expect(await order(durations)).toEqual([
    "test/push/service-worker.test.ts",
    "test/documents/library.test.ts",
    "test/app/status.test.ts",
    "test/app/transcript.test.ts",
  ]);
});

it("with a seed, shuffles each project's files by it, the projects still one after the other", async () => {
  const named = (name: string) => ({ ...project, name });
  const files = [...FILES.map((file) => [named("isolated"), file]), ...FILES.map((file) => [named("shared"), file])];
  const specs = files.map(([p, file]) => ({
    project: p,
    moduleId: join(root, file as string),
  })) as unknown as TestSpecification[];
  const run = async (seed: number) =>
    (await sequencer({}, seed).sort(specs)).map(
      (spec) => `${spec.project.name}:${spec.moduleId.slice(root.length + 1)}`,
    );
  const orders = await Promise.all([1, 2, 3, 4, 5].map(run));
  expect(await run(3)).toEqual(orders[2]);
  expect(new Set(orders.map((order) => order.join())).size).toBeGreaterThan(1);
  for (const order of orders) {
    expect(order.map((key) => key.split(":")[0])).toEqual([...Array(4).fill("isolated"), ...Array(4).fill("shared")]);
    expect([...order].sort()).toEqual(files.map(([p, file]) => `${(p as { name: string }).name}:${file}`).sort());
  }
});
