// The chat's daily controls in Chromium over a real server, bridge and scripted backend, at 390x844 and 1280x800
// (docs/app.md K1-K12 in a browser, KC1-KC5): Copy message, Regenerate with "‹ 1 / 2 ›", Edit message and resend,
// Pin chat, Archive chat and the Archived view, Export chat (a download), Delete chat behind its dialog (the server
// answers 404 after), Ctrl+Shift+O, the shortcuts list, This device (rename on the server, Unpair this device
// revokes it), with axe finding no serious violation on the chat with its controls and on the open dialog.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { axeSerious } from "./support/axe.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE, type AppPage } from "./support/browser.ts";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

describe.each([
  ["phone", PHONE],
  ["desktop", DESKTOP],
] as const)("chat controls (%s)", (label, viewport) => {
  let app: AppPage;
  beforeEach(async () => {
    app = await openPage(shared.browser, viewport);
    // Record what is copied (the clipboard API is there on 127.0.0.1; reading it back would need a permission).
    await app.context.addInitScript(() => {
      const copied: string[] = ((window as unknown as { __copied: string[] }).__copied = []);
      Object.defineProperty(navigator, "clipboard", {
        configurable: true,
        value: { writeText: async (text: string) => void copied.push(text) },
      });
    });
    await pairThroughLink(app.page, (await shared.stack.createPairing()).pair_url, `controls ${label}`);
    await app.page.getByRole("textbox", { name: "Message" }).waitFor();
  });
  afterEach(async () => {
    await app.context.close();
  });

  /** Sends `text` in a new chat and waits for `reply`; resolves the chat's session id. */
  async function chatWith(text: string, reply: string, script = true): Promise<string> {
    const { page } = app;
    if (script) shared.stack.backend.script(dialectStream("openai", { content: reply }));
    await page.goto(`${shared.stack.serverUrl}/#/new`);
    await page.getByRole("textbox", { name: "Message" }).fill(text);
    await page.getByRole("textbox", { name: "Message" }).press("Enter");
    await page.locator('article[data-role="assistant"]', { hasText: reply }).waitFor();
    await page.getByRole("button", { name: "Send" }).waitFor();
    return decodeURIComponent(new URL(page.url()).hash.replace("#/s/", ""));
  }

  it("Copy message copies the reply's markdown; Regenerate makes a version, ‹ › switch between them (KC1)", async () => {
    const { page, errors } = app;
    shared.stack.backend.script(dialectStream("openai", { content: "**Blue**, of course." }));
    await chatWith("name a colour", "Blue, of course.", false);
    await page.locator('article[data-role="assistant"]').getByRole("button", { name: "Copy message" }).click();
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { __copied: string[] }).__copied))
      .toEqual(["**Blue**, of course."]);
    shared.stack.backend.script(dialectStream("openai", { content: "Green, this time." }));
    await page.getByRole("button", { name: "Regenerate" }).click();
    await page.locator('article[data-role="assistant"]', { hasText: "Green, this time." }).waitFor();
    await page.locator('article[data-role="assistant"] .versions', { hasText: "2 / 2" }).waitFor();
    await page.locator('article[data-role="assistant"]').getByRole("button", { name: "Previous version" }).click();
    await page.locator('article[data-role="assistant"]', { hasText: "Blue" }).waitFor();
    await page.locator('article[data-role="assistant"] .versions', { hasText: "1 / 2" }).waitFor();
    expect(await axeSerious(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("Edit message resends it as a new version; Up in the empty composer opens the edit, focused (KC2)", async () => {
    const { page, errors } = app;
    const id = await chatWith("what is 2+2?", "It is 4.");
    shared.stack.backend.script(dialectStream("openai", { content: "It is 5." }));
    await page.getByRole("textbox", { name: "Message" }).press("ArrowUp");
    // The focus is in the edit box: what is typed next goes there, not into the composer.
    const edit = page.getByRole("textbox", { name: "Edit message" });
    await expect.poll(() => edit.evaluate((box) => box === document.activeElement)).toBe(true);
    await page.keyboard.press("Control+a");
    await page.keyboard.type("what is 2+3?");
    await page.getByRole("button", { name: "Resend" }).click();
    await page.locator('article[data-role="assistant"]', { hasText: "It is 5." }).waitFor();
    const session = (await shared.stack.server.request({ method: "GET", url: `/sessions/${id}` })).json.session;
    expect(session.messages.map((m: { content: string }) => m.content)).toEqual(["what is 2+3?", "It is 5."]);
    expect(session.messages[0].versions).toBe(2);
    expect(errors).toEqual([]);
  });

  it("Pin chat, Archive chat and the Archived view; Export chat downloads Markdown and JSON (KC3)", async () => {
    const { page, errors } = app;
    const id = await chatWith("a chat to keep", "Kept.");
    await page.getByRole("button", { name: "Pin chat" }).click();
    await page.locator('button[aria-label="Pin chat"][aria-pressed="true"]').waitFor();
    await expect
      .poll(
        async () => (await shared.stack.server.request({ method: "GET", url: `/sessions/${id}` })).json.session.pinned,
      )
      .toBe(true);
    const [markdown] = await Promise.all([
      page.waitForEvent("download"),
      page
        .getByRole("button", { name: "Export chat" })
        .click()
        .then(() => page.getByRole("button", { name: "Markdown" }).click()),
    ]);
    expect(markdown.suggestedFilename()).toMatch(/\.md$/);
    const [json] = await Promise.all([
      page.waitForEvent("download"),
      page
        .getByRole("button", { name: "Export chat" })
        .click()
        .then(() => page.getByRole("button", { name: "JSON" }).click()),
    ]);
    expect(json.suggestedFilename()).toMatch(/\.json$/);
    await page.getByRole("button", { name: "Archive chat" }).click();
    await expect
      .poll(
        async () =>
          (await shared.stack.server.request({ method: "GET", url: `/sessions/${id}` })).json.session.archived,
      )
      .toBe(true);
    await page.goto(`${shared.stack.serverUrl}/#/archived`);
    await page.getByRole("heading", { name: "Archived" }).waitFor();
    await page.locator(`a[href="#/s/${id}"]`).waitFor();
    expect(errors).toEqual([]);
  });

  it("Delete chat asks 'Delete chat?' in a dialog, then the server forgets the chat (KC4)", async () => {
    const { page, errors } = app;
    const id = await chatWith("a chat to delete", "Gone soon.");
    await page.getByRole("button", { name: "Delete chat" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete chat?" });
    await dialog.waitFor();
    expect(await axeSerious(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Delete" }).click();
    await expect
      .poll(async () => (await shared.stack.server.request({ method: "GET", url: `/sessions/${id}` })).status)
      .toBe(404);
    await expect.poll(() => new URL(page.url()).hash).toBe("#/");
    expect(await page.locator(`a[href="#/s/${id}"]`).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("Ctrl+Shift+O opens a new chat; the menu lists the shortcuts; This device renames itself and unpairs on the server (KC5)", async () => {
    const { page, errors } = app;
    await chatWith("hello", "Hi.");
    await page.keyboard.press("Control+Shift+O");
    await expect.poll(() => new URL(page.url()).hash).toBe("#/new");
    await page.locator("summary[aria-label=Menu]").click();
    await page.getByRole("button", { name: "Keyboard shortcuts" }).click();
    await page.getByRole("dialog", { name: "Keyboard shortcuts" }).getByText("Ctrl+Shift+O").waitFor();
    await page.getByRole("button", { name: "Close" }).click();
    await page.goto(`${shared.stack.serverUrl}/#/devices`);
    const self = page.getByRole("region", { name: "This device" });
    await expect.poll(() => self.getByRole("textbox", { name: "Device name" }).inputValue()).toBe(`controls ${label}`);
    await self.getByRole("textbox", { name: "Device name" }).fill(`renamed ${label}`);
    await self.getByRole("button", { name: "Rename this device" }).click();
    await expect
      .poll(async () => (await shared.stack.devices()).some((device) => device.name === `renamed ${label}`))
      .toBe(true);
    await self.getByRole("button", { name: "Unpair this device" }).click();
    await page.getByRole("dialog", { name: "Unpair this device?" }).getByRole("button", { name: "Unpair" }).click();
    await page.getByLabel("Pairing code").waitFor();
    const device = (await shared.stack.devices()).find((entry) => entry.name === `renamed ${label}`);
    expect(device?.revoked_at).not.toBeNull();
    expect(await page.evaluate(() => localStorage.getItem("chat-relay:credentials"))).toBeNull();
    expect(errors).toEqual([]);
  });
});
