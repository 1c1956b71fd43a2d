// The order vitest starts test files in (vitest.config.ts `sequence.sequencer`). Two workers take files from one
// queue; the suite ends when the later one ends, so a long file started last leaves the other core idle meanwhile.
// Vitest orders by each file's duration in its cache (node_modules/.vite/vitest), longest first; a fresh clone has no
// cache, and vitest then orders by file size, which started the Chromium files (the longest, 5 to 45 s each) anywhere
// in the queue: the accessibility file (21 s) near the end. Without a cached duration for every file, the files that
// drive Chromium go first (each group in vitest's order), so the short files fill the end.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** A test file that launches Chromium (directly, or through the app tests' support). */
const DRIVES_CHROMIUM = /\b(useAppBrowser|launchBrowser|playwright-core)\b/;

export function drivesChromium(file: string): boolean {
  return DRIVES_CHROMIUM.test(readFileSync(file, "utf8"));
}

export class ChromiumFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
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
