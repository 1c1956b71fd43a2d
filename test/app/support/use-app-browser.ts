// One app stack (server, bridge, scripted backend, built app) and one Chromium for all the tests of a file, started
// before the first and closed after the last. It replaces the `let stack; let browser; beforeAll/afterAll` block each
// Chromium suite wrote out. Call it at the top of the file:
//
//   const shared = useAppBrowser();
//   it("...", async () => {
//     const { page } = await openPage(shared.browser, PHONE);
//     await pairThroughLink(page, (await shared.stack.createPairing()).pair_url);
//   });
//
// With `{ pagePerTest: PHONE }` it also opens a fresh page (its own context: storage, service worker) before each
// test and closes it after, as `shared.app`.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { AppStack } from "./app-stack.ts";
import { launchBrowser, openPage, type AppPage } from "./browser.ts";

export interface AppBrowserScope {
  /** The file's app stack; throws before beforeAll started it. */
  readonly stack: AppStack;
  /** The file's Chromium; throws before beforeAll launched it. */
  readonly browser: Browser;
  /** This test's page, with `pagePerTest`; throws outside a test or without it. */
  readonly app: AppPage;
}

export function useAppBrowser(options: { pagePerTest?: { width: number; height: number } } = {}): AppBrowserScope {
  let stack: AppStack | undefined;
  let browser: Browser | undefined;
  let app: AppPage | undefined;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  const viewport = options.pagePerTest;
  if (viewport) {
    beforeEach(async () => {
      app = await openPage(browser!, viewport);
    });
    afterEach(async () => {
      await app?.context.close();
      app = undefined;
    });
  }
  return {
    get app() {
      if (!app) throw new Error("useAppBrowser: the page opens before each test, with pagePerTest");
      return app;
    },
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
