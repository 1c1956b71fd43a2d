// Hostile and heavy content, and faults, in the app: markdown that tries to run script stays inert, a 100 kB
// reply renders, a 2,000-message session is virtualized, the bridge going away mid-reply loses and doubles no
// text, and the offline shell opens with the server stopped. One stack and one browser for the file.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { streamedReply } from "./support/streamed-reply.ts";
import { ADMIN_TOKEN } from "../support/server.ts";
import { AppStack } from "./support/app-stack.ts";
import { DESKTOP, launchBrowser, openPage, pairThroughLink, PHONE } from "./support/browser.ts";

// A browser on two shared cores: generous bounds; nothing here asserts a duration.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
let stack: AppStack;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
  ({ page, errors } = await openPage(browser, DESKTOP));
  await pairThroughLink(page, (await stack.createPairing()).pair_url);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

async function sessionWith(messages: Array<{ role: "user" | "assistant"; content: string }>): Promise<string> {
  const sessionId = await stack.createSession();
  // One saved version holding every message (appending one by one saves 2,000 versions).
  const stored = messages.map((message) => ({ ...message, metadata: {} }));
  stack.server.runtime.ctx.sessions.change(sessionId, (session) => ({
    next: { ...session, messages: stored },
    events: () => [],
    result: () => undefined,
  }));
  return sessionId;
}

describe("the app under hostile content and faults", () => {
  it("renders a reply with <img onerror>, <script> and a javascript: link inert (F1)", async () => {
    const hostile = [
      "Look: <img src=x onerror=\"window.__pwned='img'\">",
      "<script>window.__pwned='script'</script>",
      "[click me](javascript:window.__pwned='link')",
      "<a href=\"javascript:window.__pwned='raw-link'\">raw</a>",
    ].join("\n\n");
    const sessionId = await sessionWith([
      { role: "user", content: "hi" },
      { role: "assistant", content: hostile },
    ]);
    await page.goto(`${stack.serverUrl}/#/s/${sessionId}`);
    const reply = page.locator('article[data-role="assistant"]');
    await reply.getByText("click me").waitFor();
    expect(await reply.locator("img, script").count()).toBe(0);
    const hrefs = await reply.locator("a").evaluateAll((links) => links.map((link) => link.getAttribute("href")));
    expect(hrefs.filter((href) => href?.toLowerCase().includes("javascript"))).toEqual([]);
    await reply.getByText("click me").click();
    expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it("renders a 100 kB reply whole and stays usable (F2)", async () => {
    const paragraph = "Lorem ipsum dolor sit amet, **consectetur** adipiscing elit, `code` and more text. ";
    const big =
      Array.from({ length: 1200 }, (_, index) => `${index}. ${paragraph}`).join("\n\n") +
      "\n\nTHE END OF THE BIG REPLY";
    expect(big.length).toBeGreaterThan(100_000);
    const sessionId = await sessionWith([
      { role: "user", content: "long please" },
      { role: "assistant", content: big },
    ]);
    await page.goto(`${stack.serverUrl}/#/s/${sessionId}`);
    await page.getByText("THE END OF THE BIG REPLY").waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("still typing");
    expect(await page.getByRole("textbox", { name: "Message" }).inputValue()).toBe("still typing");
  });

  it("keeps only the visible rows of a 2,000-message session in the DOM, and scrolls to the first (F3)", async () => {
    const messages = Array.from({ length: 2000 }, (_, index) => ({
      role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `message number ${index}`,
    }));
    const sessionId = await sessionWith(messages);
    await page.goto(`${stack.serverUrl}/#/s/${sessionId}`);
    await page.getByRole("log", { name: "Messages" }).getByText("message number 1999", { exact: true }).waitFor();
    expect(await page.locator(".message-row").count()).toBeLessThan(60);
    // The chat opens with its last page of messages; each scroll to the top of what is loaded brings the page before.
    const first = page.getByRole("log", { name: "Messages" }).getByText("message number 0", { exact: true });
    await expect
      .poll(
        async () => {
          await page.locator(".message-scroller").evaluate((scroller) => scroller.scrollTo(0, 0));
          return first.isVisible();
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    expect(await page.locator(".message-row").count()).toBeLessThan(60);
  }, 90_000);

  it("completes a reply from the log when the bridge goes away mid-reply: no text lost or doubled (F4)", async () => {
    const reply = "One two three four five six seven eight nine ten eleven twelve.";
    stack.backend.script(streamedReply(reply, 5, 4));
    await page.goto(`${stack.serverUrl}/#/new`);
    await page.locator('.connection[data-state="live"]').waitFor();
    await page.getByRole("textbox", { name: "Message" }).fill("count for me");
    await page.getByRole("textbox", { name: "Message" }).press("Enter");
    const paused = await stack.backend.nextPause();
    await page.locator('[data-streaming="true"]', { hasText: "One two" }).waitFor();
    await stack.stopBridge();
    await page.locator('.connection:not([data-state="live"])').waitFor();
    paused.resume();
    const done = page.locator('article[data-role="assistant"]:not([data-streaming])');
    await done.getByText(reply).waitFor();
    expect(await done.locator(".markdown").innerText()).toBe(reply);
    await stack.startBridge();
    await page.locator('.connection[data-state="live"]').waitFor();
    expect(await done.locator(".markdown").innerText()).toBe(reply);
  });

  it("opens the app shell offline with the server stopped: the last loaded chats, a chat opened before readable and writable into the outbox, one never opened says so (F5)", async () => {
    const offline = await openPage(browser, PHONE);
    const [opened, never] = [await stack.createSession(), await stack.createSession()];
    await stack.append(opened, "opened on this phone before");
    await stack.append(never, "never opened on this phone");
    await pairThroughLink(offline.page, (await stack.createPairing()).pair_url);
    await offline.page.goto(`${stack.serverUrl}/#/s/${opened}`);
    await offline.page.locator('article[data-role="user"]', { hasText: "opened on this phone before" }).waitFor();
    await offline.page.evaluate(() => navigator.serviceWorker.ready);
    await stack.stopServer();
    try {
      await offline.page.goto(`${stack.serverUrl}/#/`);
      await offline.page.locator(".session-title", { hasText: "never opened on this phone" }).waitFor();
      await offline.page.locator(`a.session-row[href="#/s/${opened}"]`).click();
      await offline.page.locator('article[data-role="user"]', { hasText: "opened on this phone before" }).waitFor();
      // The bridge is up and the server is not: the note says which is away.
      await offline.page.getByText("Your server is offline: these are the last loaded messages").waitFor();
      expect(await offline.page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(false);
      await offline.page.goto(`${stack.serverUrl}/#/s/${never}`);
      await offline.page.getByText("This chat is not available offline").waitFor();
      expect(await offline.page.getByText("How can I help?").count()).toBe(0);
      expect(offline.errors).toEqual([]);
    } finally {
      await stack.startServer();
      await offline.context.close();
    }
  });

  it("with no network at all: the shell and its logo from the cache, the badge Offline, Devices says why, no page error (F6)", async () => {
    const offline = await openPage(browser, PHONE);
    await pairThroughLink(offline.page, (await stack.createPairing()).pair_url);
    await offline.page.evaluate(
      (token) => localStorage.setItem("chat-relay.admin-token", JSON.stringify(token)),
      ADMIN_TOKEN,
    );
    await offline.page.evaluate(() => navigator.serviceWorker.ready);
    await offline.context.setOffline(true);
    try {
      await offline.page.reload();
      await offline.page.locator('.connection[data-state="offline"]', { hasText: "Offline" }).waitFor();
      await expect
        .poll(() =>
          offline.page.locator(".brand img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
        )
        .toBe(true);
      await offline.page.goto(`${stack.serverUrl}/#/devices`);
      await offline.page.getByRole("alert").waitFor();
      expect(await offline.page.getByText("Loading…").count()).toBe(0);
      await offline.page.goto(`${stack.serverUrl}/#/history`);
      await offline.page.getByRole("alert").waitFor();
      expect(offline.errors).toEqual([]);
    } finally {
      await offline.context.close();
    }
  });
});
