// Share links in the app, in Chromium over a real server and bridge (docs/app.md "Share links", SL1, SL2, SL4, SL5):
// the owner picks a life and "Copy link" copies the link and shows it with its QR code, listed under Live links; a
// fresh browser with no pairing opens it and reads the transcript with its image, drawn as the chat draws it; after
// Revoke the page says the link is gone, as it does for a link that never existed, and a link whose key was changed
// says it is damaged; the same link at the bridge's origin (the bridge serves the app and GET /shared) reads the
// transcript too, and is gone after Revoke. axe-core finds nothing serious. APP_SCREENSHOTS=1 also writes the share
// link pictures of docs/app/.
import type { Page } from "playwright-core";
import { describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { axeSerious } from "./support/axe.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE, SHOTS } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 150_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const GONE = "This link was revoked, has expired or never existed.";
const LINK = /^http:\/\/127\.0\.0\.1:\d+\/#\/shared\/[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

/** The owner's chat: a question with an image, and the model's answer. */
async function chatWithImage(page: Page): Promise<void> {
  shared.stack.backend.script(dialectStream("openai", { content: "Lisbon in **two days**: Alfama, then Belém." }));
  await page
    .locator('input[type="file"]')
    .first()
    .setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
  await page.locator(".attachment-tray img").waitFor();
  await page.getByRole("textbox", { name: "Message" }).fill("Plan a trip to Lisbon");
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator('article[data-role="assistant"]:not([data-streaming])', { hasText: "Alfama" }).waitFor();
}

describe("share links in the app", () => {
  it("copies a link with its QR code; a browser with no pairing reads the chat and its image, from the server and the bridge; Revoke ends it (SL1, SL2, SL4, SL8)", async () => {
    const owner = await openPage(shared.browser, DESKTOP);
    await owner.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: shared.stack.serverUrl });
    await pairThroughLink(owner.page, (await shared.stack.createPairing()).pair_url);
    await chatWithImage(owner.page);

    // SL1: the sheet, a life picked, Copy link: copied, shown with its QR code, listed.
    await owner.page.getByRole("button", { name: "Share link" }).click();
    const sheet = owner.page.getByRole("dialog", { name: "Share link" });
    await sheet.getByText("No live links.").waitFor();
    await sheet.getByLabel("Expires after").selectOption({ label: "30 days" });
    await sheet.getByRole("button", { name: "Copy link" }).click();
    await sheet.getByText("Copied.", { exact: false }).waitFor();
    const url = await sheet.getByLabel("Link", { exact: true }).inputValue();
    expect(url).toMatch(LINK);
    expect(await owner.page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    await sheet.getByRole("img", { name: "QR code of the link" }).waitFor();
    const rows = sheet.getByRole("list", { name: "Live links" }).getByRole("listitem");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toMatch(/Made just now · expires /);
    expect(await axeSerious(owner.page)).toEqual([]);
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}share-link-desktop.png` });

    // SL2: no pairing, the server's origin: the transcript as the chat draws it (markdown rendered), and the image.
    const reader = await openPage(shared.browser, PHONE);
    await reader.page.goto(url);
    await reader.page.getByText("Shared chat · read only").waitFor();
    await reader.page.getByRole("heading", { name: "Plan a trip to Lisbon" }).waitFor();
    await reader.page.locator('article[data-role="user"]', { hasText: "Plan a trip to Lisbon" }).waitFor();
    await reader.page.locator('article[data-role="assistant"] strong', { hasText: "two days" }).waitFor();
    const image = reader.page.getByRole("button", { name: "View attached image" }).locator("img");
    expect(await image.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    expect(await reader.page.getByRole("textbox", { name: "Message" }).count()).toBe(0);
    expect(await axeSerious(reader.page)).toEqual([]);
    if (SHOTS) await reader.page.screenshot({ path: `${SHOTS}shared-view-phone.png` });
    await reader.page.setViewportSize(DESKTOP);
    if (SHOTS) await reader.page.screenshot({ path: `${SHOTS}shared-view-desktop.png` });

    // SL8: the same link at the bridge's origin (a phone that reaches only the bridge), no pairing: the bridge serves
    // the app and the sealed blob, the page opens it and shows the transcript.
    const onBridge = `${shared.stack.bridgeAppUrl}${url.slice(url.indexOf("#"))}`;
    const bridgeReader = await openPage(shared.browser, PHONE);
    await bridgeReader.page.goto(onBridge);
    await bridgeReader.page.getByText("Shared chat · read only").waitFor();
    await bridgeReader.page.locator('article[data-role="assistant"] strong', { hasText: "two days" }).waitFor();
    expect(await bridgeReader.page.getByRole("textbox", { name: "Message" }).count()).toBe(0);

    // SL4: Revoke; the page, opened again, says the link is gone, as for one that never existed.
    await rows
      .first()
      .getByRole("button", { name: /^Revoke/ })
      .click();
    await sheet.getByText("No live links.").waitFor();
    await reader.page.reload();
    await reader.page.getByText(GONE).waitFor();
    await bridgeReader.page.reload();
    await bridgeReader.page.getByText(GONE).waitFor();
    const stranger = await openPage(shared.browser, PHONE);
    await stranger.page.goto(`${shared.stack.serverUrl}/#/shared/${"A".repeat(22)}.${"B".repeat(43)}`);
    await stranger.page.getByText(GONE).waitFor();
    expect([...owner.errors, ...reader.errors, ...bridgeReader.errors, ...stranger.errors]).toEqual([]);
    await Promise.all([
      owner.context.close(),
      reader.context.close(),
      bridgeReader.context.close(),
      stranger.context.close(),
    ]);
  });

  it("a link whose key was changed says it is damaged, not gone (SL5)", async () => {
    const owner = await openPage(shared.browser, PHONE);
    await pairThroughLink(owner.page, (await shared.stack.createPairing()).pair_url);
    shared.stack.backend.script(dialectStream("openai", { content: "Noted." }));
    await owner.page.getByRole("textbox", { name: "Message" }).fill("Remember the milk");
    await owner.page.getByRole("button", { name: "Send" }).click();
    await owner.page.getByText("Noted.").waitFor();
    await owner.page.getByRole("button", { name: "Share link" }).click();
    const sheet = owner.page.getByRole("dialog", { name: "Share link" });
    await sheet.getByRole("button", { name: "Copy link" }).click();
    const url = await sheet.getByLabel("Link", { exact: true }).inputValue();
    await sheet.getByRole("img", { name: "QR code of the link" }).waitFor();
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}share-link-phone.png` });
    const key = url.slice(-43);
    const changed = `${url.slice(0, -43)}${key[0] === "A" ? "B" : "A"}${key.slice(1)}`;
    const reader = await openPage(shared.browser, PHONE);
    await reader.page.goto(changed);
    await reader.page.getByText("This link is damaged", { exact: false }).waitFor();
    await Promise.all([owner.context.close(), reader.context.close()]);
  });
});
