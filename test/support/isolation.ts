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

/**
 * A bridge started in the test's own process (test/bridge's helpers, or the bridge itself). In a shared worker, after
 * other such files, relayed calls of test/relay's and test/sharing's bridge files were answered "the server is
 * offline" (a whole run of the shared project, 2026-11-29 15:40). The same calls failed in fresh workers too, under a
 * heartbeat change reverted since (docs/testing.md "The suite's time"), so sharing was most likely not the cause; these
 * files keep a worker each until a whole run shows they can share.
 */
const STARTS_A_BRIDGE = /from "[^"]*\/bridge\/(helpers|bridge)\.ts"/;
const STARTS_A_BRIDGE_IN_TEST_BRIDGE = /from "\.\/helpers\.ts"/;

function startsABridge(file: string, text: string): boolean {
  return STARTS_A_BRIDGE.test(text) || (file.startsWith("test/bridge/") && STARTS_A_BRIDGE_IN_TEST_BRIDGE.test(text));
}

export function runsIsolated(root: string, file: string): boolean {
  const path = `${root}/${file}`;
  const text = readFileSync(path, "utf8");
  return OUTLIVES_FILE.some((pattern) => pattern.test(text)) || startsABridge(file, text) || drivesChromium(path);
}
