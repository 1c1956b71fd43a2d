// Honest status in Chromium (docs/app.md B2): with the server stopped and the bridge up, a send says the server is
// offline (not the network) and keeps the text, the badge reads "Server offline", and it is back to "Live" once the
// server is.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AppStack } from "./support/app-stack.ts";
import { launchBrowser, openPage, pairThroughLink, PHONE } from "./support/browser.ts";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
let stack: AppStack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("connection status", () => {
  it("says the server is offline when it is stopped with the bridge up, then Live when it is back (B2)", async () => {
    const { context, page, errors } = await openPage(browser, PHONE);
    await pairThroughLink(page, (await stack.createPairing()).pair_url);
    await page.locator('.connection[data-state="live"]').waitFor();
    await stack.stopServer();
    try {
      const message = page.getByRole("textbox", { name: "Message" });
      await message.fill("is anyone there?");
      await message.press("Enter");
      const alert = page.getByRole("alert").filter({ hasText: "Not sent" });
      await alert.waitFor();
      expect(await alert.innerText()).toContain("your server is offline");
      expect(await message.inputValue()).toBe("is anyone there?");
      await page.locator('.connection[data-state="server_offline"]', { hasText: "Server offline" }).waitFor();
    } finally {
      await stack.startServer();
    }
    await page.locator('.connection[data-state="live"]').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
