// The companion app in Chromium against a real server, bridge and scripted backend: pairing through pair_url,
// sending, streaming, tools, failures, at a phone's size (390x844). One stack and one browser for the file; every
// test pairs a page of its own, so each runs alone or in any order.
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { dialectStream, pieces, chunk } from "../../scripts/scripted-backend/index.ts";
import { AppStack } from "./support/app-stack.ts";
import { launchBrowser, openPage, pairThroughLink, PHONE, type AppPage } from "./support/browser.ts";

// A browser on two shared cores: generous bounds; nothing here asserts a duration.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
let stack: AppStack;
let browser: Browser;
let app: AppPage;

beforeAll(async () => {
  [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
});

beforeEach(async () => {
  app = await openPage(browser, PHONE);
});

afterEach(async () => {
  await app.context.close();
});

/** A phone paired through pair_url, on a new chat. */
async function paired(): Promise<void> {
  await pairThroughLink(app.page, (await stack.createPairing()).pair_url);
  await message().waitFor();
}

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const message = () => app.page.getByRole("textbox", { name: "Message" });

describe("companion app on a phone", () => {
  it("pairs by opening pair_url, under the browser's name, and lands in a new chat (A1, A2)", async () => {
    const { pair_url } = await stack.createPairing();
    const before = (await stack.devices()).length;
    await app.page.goto(pair_url);
    await message().waitFor();
    await app.page.getByRole("button", { name: "Send" }).waitFor();
    expect(new URL(app.page.url()).hash).toBe("#/new");
    const devices = await stack.devices();
    expect(devices).toHaveLength(before + 1);
    // The browser's kind and this browser's own tag, so two phones of one kind are told apart.
    expect(devices.at(-1)?.name).toMatch(/^Chrome on Linux \([0-9a-f]{4}\)$/);
    await app.page.locator('.connection[data-state="live"]').waitFor();
    expect(app.errors).toEqual([]);
  });

  it("Shift+Enter is a new line; Enter sends; the reply streams on screen before it ends (A3, A4)", async () => {
    await paired();
    const reply = "Hello from the scripted backend, streamed in small pieces.";
    const parts = pieces(reply, 6).map((text) => ({ data: chunk({ content: text }) }));
    stack.backend.script({
      kind: "stream",
      parts: [{ data: chunk({ role: "assistant", content: "" }) }, ...parts, { data: chunk({}, "stop") }],
      pauseAfter: 4,
    });
    await message().fill("first line");
    await message().press("Shift+Enter");
    await message().pressSequentially("second line");
    expect(await message().inputValue()).toBe("first line\nsecond line");
    await message().press("Enter");
    const paused = await stack.backend.nextPause();
    // Three content pieces were written: they must be on screen while the backend holds the rest.
    await app.page.locator('[data-streaming="true"]', { hasText: reply.slice(0, 18) }).waitFor();
    expect(await app.page.getByText(reply).count()).toBe(0);
    paused.resume();
    await app.page.locator('article[data-role="assistant"]:not([data-streaming])', { hasText: reply }).waitFor();
    expect(await message().inputValue()).toBe("");
    await expect.poll(() => app.page.locator('article[data-role="user"]').first().innerText()).toContain("second line");
  });

  it("shows a tool call and its result's display text (A5)", async () => {
    await paired();
    stack.backend.script(
      dialectStream("openai", { tool_calls: [{ id: "c1", name: "get_weather", arguments: '{"city":"Oslo"}' }] }),
      dialectStream("openai", { content: "It is sunny in Oslo." }),
    );
    await message().fill("weather in Oslo?");
    await message().press("Enter");
    await app.page.locator(".tool-call", { hasText: "get_weather" }).waitFor();
    await app.page.locator(".tool-result", { hasText: "☀ Sunny in Oslo" }).waitFor();
    expect(await app.page.getByText("raw: sunny in Oslo").count()).toBe(0);
    await app.page.getByText("It is sunny in Oslo.").waitFor();
  });

  it("Stop cancels a streaming reply, marked as stopped (A6)", async () => {
    await paired();
    stack.backend.script({ kind: "hang", sendHeaders: true });
    await message().fill("this one never ends");
    await message().press("Enter");
    await app.page.getByRole("button", { name: "Stop" }).click();
    await app.page.getByText("You stopped this reply.").waitFor();
    await app.page.getByRole("button", { name: "Send" }).waitFor();
  });

  it("a send the server refuses keeps the text in the composer and says why (A7)", async () => {
    await paired();
    // A refusal, not an unreachable server (that one waits in the outbox: test/app/outbox.test.ts, B2).
    const refusal = {
      code: "agent_not_allowed",
      message: 'agent "default" is not among the agents this person may use',
    };
    await app.page.route("**/sessions/*/send", (route) =>
      route.fulfill({ status: 403, contentType: "application/json", body: JSON.stringify({ error: refusal }) }),
    );
    try {
      await message().fill("keep me");
      await message().press("Enter");
      const alert = app.page.getByRole("alert").filter({ hasText: "Not sent" });
      await alert.waitFor();
      expect(await alert.innerText()).toContain("not among the agents");
      expect(await message().inputValue()).toBe("keep me");
      expect(await app.page.locator(".waiting-message").count()).toBe(0);
    } finally {
      await app.page.unroute("**/sessions/*/send");
    }
  });

  it("refuses an oversized image before uploading it (A8)", async () => {
    await paired();
    const uploads: string[] = [];
    app.page.on("request", (request) => request.url().includes("store_attachment") && uploads.push(request.url()));
    // An 11 MB PNG made inside the page (sending it over the DevTools protocol is slow on a loaded machine).
    await app.page.locator('input[type="file"]').evaluate((input: HTMLInputElement) => {
      const bytes = new Uint8Array(11 * 1024 * 1024);
      bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const files = new DataTransfer();
      files.items.add(new File([bytes], "huge.png", { type: "image/png" }));
      input.files = files.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
    // The limit is the server's (assets.max_bytes, 10 MB by default), read from its agent view.
    await app.page.getByRole("alert").filter({ hasText: "images can be at most 10.0 MB" }).waitFor();
    expect(await app.page.locator(".attachment-tray img").count()).toBe(0);
    expect(uploads).toEqual([]);
    expect(app.errors).toEqual([]);
  });

  it("shows a new chat's title as soon as the first message is sent, without a reload (A9)", async () => {
    await paired();
    stack.backend.script({
      kind: "stream",
      parts: [{ data: chunk({ role: "assistant", content: "A coast redwood." }) }, { data: chunk({}, "stop") }],
    });
    await message().fill("Which is the tallest tree on Earth?");
    await message().press("Enter");
    await app.page.locator(".chat-header h1", { hasText: "Which is the tallest tree on Earth?" }).waitFor();
    await app.page.getByText("A coast redwood.").waitFor();
    await app.page.getByRole("link", { name: "All chats" }).click();
    await app.page.locator(".session-title", { hasText: "Which is the tallest tree on Earth?" }).waitFor();
  });
});
