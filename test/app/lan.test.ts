// The app opened from a non-loopback http: address (docs/app.md I1), as a phone on the LAN opens it: Chromium maps
// lan.test to 127.0.0.1, so the page's origin is http://lan.test:<port>, not a secure context (no crypto.randomUUID,
// no service worker, no clipboard API). It pairs from the link, chats with the reply streamed, says once that
// offline use, install and notifications need HTTPS, and raises no page error.
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { streamedReply } from "./support/streamed-reply.ts";
import { AppStack } from "./support/app-stack.ts";
import { CHROMIUM_ARGS, openPage, PHONE } from "./support/browser.ts";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
let stack: AppStack;
let browser: Browser;

beforeAll(async () => {
  const launch = chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...CHROMIUM_ARGS, "--host-resolver-rules=MAP lan.test 127.0.0.1"],
  });
  [stack, browser] = await Promise.all([AppStack.startApp(), launch]);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("the app on a plain http: LAN origin", () => {
  it("pairs, chats and streams without a secure context, and says once what needs HTTPS (I1)", async () => {
    const { context, page, errors } = await openPage(browser, PHONE);
    const { pair_url } = await stack.createPairing();
    const lanUrl = pair_url.replace(stack.serverUrl, `http://lan.test:${new URL(stack.serverUrl).port}`);
    expect(lanUrl.startsWith("http://lan.test:")).toBe(true);
    await page.goto(lanUrl);
    const message = page.getByRole("textbox", { name: "Message" });
    await message.waitFor();
    expect(
      await page.evaluate(() => [isSecureContext, typeof crypto.randomUUID, "serviceWorker" in navigator]),
    ).toEqual([false, "undefined", false]);
    await page.getByText("This page is served over plain http").waitFor();

    const reply = "Hello over the LAN, streamed in small pieces.";
    stack.backend.script(streamedReply(reply, 6));
    await message.fill("hello from the phone");
    await message.press("Enter");
    await page.locator('article[data-role="assistant"]:not([data-streaming])', { hasText: reply }).waitFor();

    // Said once: not again on the next visit.
    await page.reload();
    await message.waitFor();
    expect(await page.getByText("This page is served over plain http").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
