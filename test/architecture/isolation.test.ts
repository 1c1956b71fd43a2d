// Which files share their worker's modules (test/support/isolation.ts, vitest.config.ts's two projects; docs/testing.md
// "The suite's time", T5): a file whose doings outlive it in the worker runs in a fresh one.
import { join } from "node:path";
import { expect, it } from "vitest";
import { runsIsolated } from "../support/isolation.ts";

const root = join(import.meta.dirname, "..", "..");

it("isolates the files that patch a global, fake timers, switch the cipher, run in a DOM or drive Chromium", () => {
  const isolated = [
    "test/push/notifications-toggle.test.ts", // vi.stubGlobal, Object.defineProperty(globalThis, ...)
    "test/app-dom/offline-list.test.ts", // a DOM environment (its docblock), vi.useFakeTimers
    "test/client/xchacha.test.ts", // useCipher
    "test/client/random.test.ts", // useRandom
    "test/bridge/clock.test.ts", // globalThis.setTimeout = ...
    "test/app/status.test.ts", // useAppBrowser
    "test/push/service-worker.test.ts", // launchBrowser
  ];
  expect(isolated.filter((file) => !runsIsolated(root, file))).toEqual([]);
});

it("shares the modules of files that start servers, bridges and databases and restore what they touch", () => {
  const shared = [
    "test/sessions/restart.test.ts",
    "test/search/hostile.test.ts",
    "test/relay/api-relay-unit.test.ts", // a process listener, removed in `finally`
    "test/client/faults.test.ts", // reads globalThis.fetch, does not replace it
  ];
  expect(shared.filter((file) => runsIsolated(root, file))).toEqual([]);
});
