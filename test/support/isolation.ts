// Which test files share their worker's modules (vitest.config.ts, project "shared", `isolate: false`) and which
// run in a fresh worker each (project "isolated"). Importing the server's runtime again in every file cost more time
// than the tests of most files; a worker that runs file after file imports it once. A file runs isolated when what
// it does outlives it in the worker: it patches a global, fakes timers, mocks a module, switches a process-wide seam
// (the cipher, the random source), runs in another environment (happy-dom), or drives Chromium (its long files gain
// nothing, and a browser's leftovers stay out of the shared workers).
import { readFileSync } from "node:fs";
import { drivesChromium } from "./sequencer.ts";

/** What a test file does that lasts past its end in the worker that ran it. */
const OUTLIVES_FILE = [
  /\bvi\.(stubGlobal|stubEnv|useFakeTimers|mock|doMock|hoisted)\b/,
  /\buse(Cipher|Random)\(/,
  /\bglobalThis\.\w+\s*=[^=]/,
  /\bObject\.defineProperty\(globalThis\b/,
  /@vitest-environment\b/,
];

/** Files isolated for a reason the patterns above do not see; each with its reason. */
const ISOLATED_BY_NAME: Record<string, string> = {};

export function runsIsolated(root: string, file: string): boolean {
  if (file in ISOLATED_BY_NAME) return true;
  const path = `${root}/${file}`;
  const text = readFileSync(path, "utf8");
  return OUTLIVES_FILE.some((pattern) => pattern.test(text)) || drivesChromium(path);
}
