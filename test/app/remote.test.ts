// The app with server_url unreachable (issue 14, docs/app.md A9-R): opened from the bridge's URL (the bridge serves
// the same build), it does everything through the bridge's API relay: pairing from pair_url, the sessions list,
// opening a chat, sending with the reply streamed, cancelling, an image attachment, and a notification shown and
// dismissed. The server's public URL, which pairing hands the app as server_url, is a port nothing listens on.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { chunk } from "../../scripts/scripted-backend/index.ts";
import { streamedReply } from "./support/streamed-reply.ts";
import { closedPort } from "../relay/stack.ts";
import { AppStack } from "./support/app-stack.ts";
import { launchBrowser, openPage, PHONE } from "./support/browser.ts";

// A browser on two shared cores: generous bounds; nothing here asserts a duration.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
let stack: AppStack;
let browser: Browser;
let page: Page;
let errors: string[];
let unreachable: string;
let pairUrl: string;
/** Requests the page made to server_url (each fails: nothing listens there). */
const direct: string[] = [];

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

beforeAll(async () => {
  unreachable = `http://127.0.0.1:${await closedPort()}`;
  // server.public_url (handed to apps as server_url) is unreachable; server.app_url sends pair_url to the bridge.
  [stack, browser] = await Promise.all([
    AppStack.startApp({}, { publicUrl: unreachable, appOnBridge: true }),
    launchBrowser(),
  ]);
  ({ page, errors } = await openPage(browser, PHONE));
  page.on("request", (request) => void (request.url().startsWith(unreachable) && direct.push(request.url())));
  // The server's own pair_url (the QR code), which opens the app on the bridge (server.app_url) and pairs at once.
  pairUrl = (await stack.createPairing()).pair_url;
  await page.goto(pairUrl);
  await page.locator('.connection[data-state="live"]').waitFor();
});

/** Each test starts on a new chat of the page paired above, so it runs alone or in any order. */
async function newChat(): Promise<void> {
  await page.goto(`${stack.bridgeAppUrl}#/new`);
  await message().waitFor();
}

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const message = () => page.getByRole("textbox", { name: "Message" });

async function sessionMessages(
  sessionId: string,
): Promise<Array<{ role: string; content: string; metadata?: { attachments?: unknown[] } }>> {
  return (await stack.server.request({ method: "GET", url: `/sessions/${sessionId}/messages` })).json.messages;
}

describe("the app with server_url unreachable, through the bridge alone (A9-R)", () => {
  it("pairs from pair_url on the bridge's own URL, lists the sessions and opens a chat", async () => {
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "an earlier question");
    expect(pairUrl.startsWith(`${stack.bridgeAppUrl}#/pair?`)).toBe(true);
    await page.goto(`${stack.bridgeAppUrl}#/`);
    // The saved pairing names the unreachable server_url (whatever the app's storage key).
    const saved = await page.evaluate(() =>
      Object.values(localStorage).filter((value) => value.includes('"device_token"')),
    );
    expect(saved.map((value) => (JSON.parse(value) as { server_url?: string }).server_url)).toEqual([unreachable]);

    await page.locator(`a.session-row[href="#/s/${sessionId}"]`).click();
    await page.locator('article[data-role="user"]', { hasText: "an earlier question" }).waitFor();
  });

  it("sends, and the reply streams on screen before it ends", async () => {
    await newChat();
    const reply = "Relayed all the way, streamed in small pieces.";
    stack.backend.script(streamedReply(reply, 6, 4));
    await message().fill("through the bridge, please");
    await message().press("Enter");
    const paused = await stack.backend.nextPause();
    await page.locator('[data-streaming="true"]', { hasText: reply.slice(0, 18) }).waitFor();
    paused.resume();
    await page.locator('article[data-role="assistant"]:not([data-streaming])', { hasText: reply }).waitFor();
    expect(await message().inputValue()).toBe("");
  });

  it("Stop cancels a reply", async () => {
    await newChat();
    stack.backend.script({ kind: "hang", sendHeaders: true });
    await message().fill("this one never ends");
    await message().press("Enter");
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("You stopped this reply.").waitFor();
    await page.getByRole("button", { name: "Send" }).waitFor();
  });

  it("uploads an image attachment and sends it", async () => {
    await newChat();
    stack.backend.script({
      kind: "stream",
      parts: [{ data: chunk({ role: "assistant", content: "A single dot." }) }, { data: chunk({}, "stop") }],
    });
    await page.locator('input[type="file"]').setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
    await page.locator(".attachment-tray img").waitFor();
    await message().fill("what is in this picture?");
    await message().press("Enter");
    await page.locator('article[data-role="assistant"]:not([data-streaming])', { hasText: "A single dot." }).waitFor();
    await page
      .locator('article[data-role="user"]', { hasText: "what is in this picture?" })
      .getByRole("button", { name: "View attached image" })
      .waitFor();
    const sessionId = decodeURIComponent(new URL(page.url()).hash.split("/")[2]!);
    const sent = (await sessionMessages(sessionId)).find((entry) => entry.content === "what is in this picture?");
    expect(sent?.metadata?.attachments).toHaveLength(1);
  });

  it("shows a notification and dismisses it on the server", async () => {
    const record = stack.notifyApplication({
      key: "remote",
      severity: "warning",
      title: "Disk almost full",
      body: "92% used",
      display: { presentation: "banner" },
    });
    const banner = page.locator(`.notification.banner[data-notification-id="${record.id}"]`);
    await banner.getByText("92% used").waitFor();
    await page.getByRole("button", { name: "Dismiss: Disk almost full" }).click();
    await banner.waitFor({ state: "detached" });
    const list = (
      await stack.server.request({ method: "GET", url: "/application/notifications?include_terminal=true" })
    ).json as Array<{ id: string; status: string }>;
    expect(list.find((entry) => entry.id === record.id)?.status).toBe("dismissed");
  });

  it("never reached server_url, and raised no page error", () => {
    // The library tried server_url (route auto) and found nothing there; everything above went through the bridge.
    expect(direct.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
