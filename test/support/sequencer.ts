// The order vitest starts test files in (vitest.config.ts `sequence.sequencer`). Two workers take files from one
// queue; the suite ends when the later one ends, so a long file started last leaves the other core idle meanwhile.
// Vitest orders by each file's duration in its cache (node_modules/.vite/vitest), longest first; a fresh clone has no
// cache, and vitest then orders by file size, which started the Chromium files (the longest, 5 to 45 s each) anywhere
// in the queue: the accessibility file (21 s) near the end. Without a cached duration for every file, the files that
// drive Chromium go first (each group in vitest's order), so the short files fill the end.
// With a seed given (`vitest run --sequence.seed=N`), each project's files run in an order shuffled by that seed, the
// projects still one after the other: a file in the shared workers (test/support/isolation.ts) meets other files
// before and after it than usual, which shows state one leaves behind for the next.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { seededRandom } from "./seeded-random.ts";

/** A test file that launches Chromium (directly, or through the app tests' support). */
const DRIVES_CHROMIUM = /\b(useAppBrowser|launchBrowser|playwright-core)\b/;

export function drivesChromium(file: string): boolean {
  return DRIVES_CHROMIUM.test(readFileSync(file, "utf8"));
}

export class ChromiumFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seed = this.ctx.config.sequence.seed;
    if (seed !== undefined) return shuffledInProjects(sorted, seed);
    const cache = this.ctx.cache;
    const timed = sorted.every((file) => cache.getFileTestResults(this.keyOf(file)) !== undefined);
    if (timed) return sorted;
    const chromium = new Set(sorted.filter((file) => drivesChromium(file.moduleId)));
    return [...chromium, ...sorted.filter((file) => !chromium.has(file))];
  }

  /** The cache's key of a file, as BaseSequencer.sort spells it. */
  private keyOf(file: TestSpecification): string {
    return `${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`;
  }
}

/** `files` (grouped by project) with each project's files in an order shuffled by `seed` (a seeded key each). */
export function shuffledInProjects(files: TestSpecification[], seed: number): TestSpecification[] {
  const random = seededRandom(seed);
  const projects = [...new Set(files.map((file) => file.project.name))];
  return projects.flatMap((name) => {
    const keyed = files.filter((file) => file.project.name === name).map((file) => ({ file, key: random() }));
    return keyed.sort((a, b) => a.key - b.key).map(({ file }) => file);
  });
}
