// A page opened while the network stalls (docs/app.md "Offline", OF16): the server's address takes the connection and
// answers nothing, as on a weak signal (not a stopped server, whose refusal the service worker sees at once). The
// worker answers the navigation with the cached shell once the network has not answered in time, and the chat kept on
// the device shows. Without the worker's timeout the page stays blank until the browser gives up on the navigation.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { CuttableProxy } from "../client/support/proxy.ts";
import { AppStack } from "./support/app-stack.ts";
import { launchBrowser, openPage, pairAndOpen, PHONE } from "./support/browser.ts";
import { offlineCacheKeys } from "./support/offline-db.ts";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
let stack: AppStack;
let browser: Browser;
/** The server as the phone reaches it: the app's origin, and the address pairing gives it. */
let proxy: CuttableProxy;
let appUrl: string;

beforeAll(async () => {
  let serverPort = 0;
  proxy = await CuttableProxy.start(() => serverPort);
  appUrl = `http://127.0.0.1:${proxy.port}`;
  [stack, browser] = await Promise.all([AppStack.startApp({}, { publicUrl: appUrl }), launchBrowser()]);
  serverPort = Number(new URL(stack.serverUrl).port);
});
afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await stack?.close();
});

it("a page opened while the network stalls shows the chat kept on the device, from the cached shell (OF16)", async () => {
  const chat = await stack.createSession();
  await stack.append(chat, "kept on this phone");
  const { context, page, errors } = await openPage(browser, PHONE);
  await pairAndOpen(page, { createPairing: () => stack.createPairing(), serverUrl: appUrl }, chat);
  await page.locator('article[data-role="user"]', { hasText: "kept on this phone" }).waitFor();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await expect.poll(() => offlineCacheKeys(page), { timeout: 15_000 }).toContain(`transcripts:${chat}`);
  proxy.blackhole();
  try {
    await page.reload();
    await page.locator('article[data-role="user"]', { hasText: "kept on this phone" }).waitFor();
    expect(errors).toEqual([]);
  } finally {
    proxy.restore();
    await context.close();
  }
});
