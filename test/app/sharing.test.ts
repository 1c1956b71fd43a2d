// Sharing in the app, in Chromium over a real server and bridge (docs/app.md "Sharing", SA1-SA3): the owner shares a
// chat from its header with a person picked from the directory; it appears live in that person's list as "Shared by
// Owner", read-only for `read` (with "Copy to my chats" making their own copy); with `write` they send, and the
// transcript names who wrote each message; when the owner stops sharing, the chat leaves their list and their cache.
// APP_SCREENSHOTS=1 also writes the sharing pictures of docs/app/.
import type { Page } from "playwright-core";
import { describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { until } from "../client/support/stack.ts";
import { axeSerious } from "./support/axe.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE, SHOTS } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/** A new person, and a pairing link for their first device (as the People screen makes one). */
async function personWithLink(name: string): Promise<{ id: string; pair_url: string }> {
  const { server, bridge } = shared.stack;
  const person = (await server.request({ method: "POST", url: "/people", payload: { name } })).json.person;
  const created = (await server.request({ method: "POST", url: "/pairing", payload: { person_id: person.id } })).json;
  await until(() => bridge?.core.registry.findCode(hashPairingCode(created.code)) !== undefined, "code on the bridge");
  return { id: person.id, pair_url: created.pair_url };
}

async function sendIn(page: Page, text: string): Promise<void> {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

describe("sharing in the app", () => {
  it("shares read-only, then write, names who wrote what, and drops the chat on unshare (SA1-SA3)", async () => {
    shared.stack.backend.script(
      dialectStream("openai", { content: "Lisbon in two days: Alfama, then Belém." }),
      dialectStream("openai", { content: "Add Sintra." }),
    );
    const owner = await openPage(shared.browser, DESKTOP);
    await pairThroughLink(owner.page, (await shared.stack.createPairing()).pair_url);
    const ana = await personWithLink("Ana");
    const anaPage = await openPage(shared.browser, PHONE);
    await pairThroughLink(anaPage.page, ana.pair_url);

    await anaPage.page.goto(`${shared.stack.serverUrl}/#/`);
    await anaPage.page.getByRole("textbox", { name: "Message" }).waitFor();
    await sendIn(owner.page, "Plan a trip to Lisbon");
    await owner.page.getByText("Lisbon in two days").waitFor();
    await owner.page.getByRole("button", { name: "Share chat" }).click();
    const dialog = owner.page.getByRole("dialog", { name: "Share chat" });
    await dialog.getByLabel("Person", { exact: true }).selectOption({ label: "Ana" });
    await dialog.getByRole("button", { name: "Share", exact: true }).click();
    await dialog.getByRole("list", { name: "Shared with" }).getByText("Ana", { exact: true }).waitFor();
    expect(await axeSerious(owner.page)).toEqual([]);
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}share-desktop.png` });
    await dialog.getByRole("button", { name: "Done" }).click();

    // SA1: live in Ana's list, marked, read-only with Copy to my chats.
    const row = anaPage.page.locator(".session-row", { hasText: "Plan a trip to Lisbon" });
    await row.getByText("Shared by Owner").waitFor();
    if (SHOTS) await anaPage.page.screenshot({ path: `${SHOTS}shared-list-phone.png` });
    await row.click();
    await anaPage.page.getByText("Owner shared this chat with you to read.", { exact: false }).waitFor();
    expect(await anaPage.page.getByRole("button", { name: "Delete chat" }).count()).toBe(0);
    expect(await axeSerious(anaPage.page)).toEqual([]);
    if (SHOTS) await anaPage.page.screenshot({ path: `${SHOTS}shared-read-phone.png` });
    await anaPage.page.getByRole("button", { name: "Copy to my chats" }).click();
    await expect.poll(() => new URL(anaPage.page.url()).hash).not.toContain(await sessionIdOf(owner.page));
    await anaPage.page.getByRole("textbox", { name: "Message" }).waitFor();

    // SA2: write access: Ana sends in the shared chat; both transcripts name the writers.
    await owner.page.getByRole("button", { name: "Share chat" }).click();
    await dialog.getByLabel("Access for Ana").selectOption("write");
    await dialog.getByRole("button", { name: "Done" }).click();
    await anaPage.page.goto(`${shared.stack.serverUrl}/#/s/${await sessionIdOf(owner.page)}`);
    await sendIn(anaPage.page, "And a day trip?");
    await owner.page.getByText("Add Sintra.").waitFor();
    const senders = owner.page.locator(".message-sender");
    await expect.poll(() => senders.allInnerTexts()).toEqual(["Owner", "Ana"]);
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}shared-writers-desktop.png` });

    // SA3: unshare: the chat leaves Ana's list (and her device's cache).
    await anaPage.page.goto(`${shared.stack.serverUrl}/#/`);
    await anaPage.page.locator(".session-row", { hasText: "Plan a trip to Lisbon" }).first().waitFor();
    await owner.page.getByRole("button", { name: "Share chat" }).click();
    await dialog.getByRole("button", { name: "Remove Ana" }).click();
    await dialog.getByText("Only you can see this chat.").waitFor();
    await expect.poll(() => anaPage.page.locator(".session-row", { hasText: "Shared by Owner" }).count()).toBe(0);
    expect([...owner.errors, ...anaPage.errors]).toEqual([]);
    await owner.context.close();
    await anaPage.context.close();
  });
});

async function sessionIdOf(page: Page): Promise<string> {
  const hash = new URL(page.url()).hash;
  return decodeURIComponent(hash.replace(/^#\/s\//, ""));
}
