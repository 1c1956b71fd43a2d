// One app stack (server, bridge, scripted backend, built app) and one Chromium for all the tests of a file, started
// before the first and closed after the last. It replaces the `let stack; let browser; beforeAll/afterAll` block each
// Chromium suite wrote out. Call it at the top of the file:
//
//   const shared = useAppBrowser();
//   it("...", async () => {
//     const { page } = await openPage(shared.browser, PHONE);
//     await pairThroughLink(page, (await shared.stack.createPairing()).pair_url);
//   });
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { AppStack } from "./app-stack.ts";
import { launchBrowser } from "./browser.ts";

export interface AppBrowserScope {
  /** The file's app stack; throws before beforeAll started it. */
  readonly stack: AppStack;
  /** The file's Chromium; throws before beforeAll launched it. */
  readonly browser: Browser;
}

export function useAppBrowser(): AppBrowserScope {
  let stack: AppStack | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  return {
    get stack() {
      if (!stack) throw new Error("useAppBrowser: the stack starts in beforeAll");
      return stack;
    },
    get browser() {
      if (!browser) throw new Error("useAppBrowser: the browser launches in beforeAll");
      return browser;
    },
  };
}
