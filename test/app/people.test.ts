// People in the app, in Chromium over a real server and bridge (docs/app.md "People", PA1-PA5): the admin's People
// screen adds a person and shows the QR code of their first device, which pairs as that person; a member's menu has no
// admin screens and their Devices lists only their own; the admin's lists everyone's with owner names; removing asks
// what becomes of the chats; the last admin is said plainly; a device added for a person is announced on their others.
// axe-core finds nothing serious on the screens. APP_SCREENSHOTS=1 also writes the people pictures of docs/app/.
import type { Page } from "playwright-core";
import { describe, expect, it, vi } from "vitest";
import { axeSerious } from "./support/axe.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE, SHOTS } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

async function openMenuEntry(page: Page, name: string): Promise<void> {
  await page.locator("summary[aria-label=Menu]").click();
  await page.getByRole("navigation", { name: "Menu" }).getByRole("link", { name }).click();
}

/** The pairing link the People screen shows for the person it was made for. */
async function shownPairLink(page: Page): Promise<string> {
  const group = page.getByRole("group", { name: "Pairing link" });
  return await group.getByRole("link").innerText();
}

describe("people in the app", () => {
  it("the admin adds a person, whose first device pairs as them from the QR link; a member sees no admin screens and only their own devices (PA1, PA2)", async () => {
    const owner = await openPage(shared.browser, DESKTOP);
    await pairThroughLink(owner.page, (await shared.stack.createPairing()).pair_url, "Owner laptop");
    await openMenuEntry(owner.page, "People");
    await owner.page.getByRole("heading", { name: "People" }).waitFor();
    await owner.page.getByRole("button", { name: "Add person" }).click();
    const form = owner.page.getByRole("form", { name: "Add person" });
    await form.getByLabel("Name").fill("Ana");
    await form.getByLabel("Requests per day (empty: no limit)").fill("50");
    await form.getByRole("button", { name: "Add" }).click();
    await owner.page.getByText("This device will be Ana’s.").waitFor();
    const link = await shownPairLink(owner.page);
    const row = owner.page.locator(".person", { hasText: "Ana" });
    await row.getByText("50 requests").waitFor();
    expect(await axeSerious(owner.page)).toEqual([]);
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}people-desktop.png` });

    const ana = await openPage(shared.browser, PHONE);
    await pairThroughLink(ana.page, link, "Ana phone");
    await ana.page.locator("summary[aria-label=Menu]").click();
    const menu = ana.page.getByRole("navigation", { name: "Menu" });
    await menu.getByRole("link", { name: "Devices" }).waitFor();
    expect(await menu.getByRole("link", { name: "People" }).count()).toBe(0);
    await menu.getByRole("link", { name: "Devices" }).click();
    await ana.page.locator(".device").first().waitFor();
    expect(await ana.page.locator(".device strong").allInnerTexts()).toEqual(["Ana phone"]);
    await ana.page.goto(`${shared.stack.serverUrl}/#/people`);
    await ana.page.getByText("Only an admin manages the people on this server.").waitFor();

    await openMenuEntry(owner.page, "Devices");
    await owner.page.locator(".device", { hasText: "Ana phone" }).getByText("Ana", { exact: true }).waitFor();
    await owner.page.locator(".device", { hasText: "Owner laptop" }).waitFor();
    expect(await axeSerious(owner.page)).toEqual([]);
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}people-devices-desktop.png` });
    expect([...owner.errors, ...ana.errors]).toEqual([]);
    await owner.context.close();
    await ana.context.close();
  });

  it("editing says the last admin plainly (409 last_admin); removing asks delete or transfer and signs the person's devices out (PA3)", async () => {
    const owner = await openPage(shared.browser, PHONE);
    await pairThroughLink(owner.page, (await shared.stack.createPairing()).pair_url);
    await owner.page.goto(`${shared.stack.serverUrl}/#/people`);
    const me = owner.page.locator(".person", { has: owner.page.getByText("You", { exact: true }) });
    await me.getByRole("button", { name: /^Edit / }).click();
    await owner.page.getByLabel("Role").selectOption("member");
    await owner.page.getByRole("button", { name: "Save" }).click();
    const alert = owner.page.locator("main.people").getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toBe(
      "This is the last admin: make someone else an admin first, then change or remove this person.",
    );
    await owner.page.getByRole("button", { name: "Cancel" }).click();

    await owner.page.getByRole("button", { name: "Add person" }).click();
    await owner.page.getByRole("form", { name: "Add person" }).getByLabel("Name").fill("Bo");
    await owner.page.getByRole("button", { name: "Add", exact: true }).click();
    const link = await shownPairLink(owner.page);
    const bo = await openPage(shared.browser, PHONE);
    await pairThroughLink(bo.page, link);
    await owner.page.getByRole("button", { name: "Remove Bo" }).click();
    const dialog = owner.page.getByRole("dialog", { name: "Remove Bo?" });
    const confirm = dialog.getByRole("button", { name: "Remove" });
    expect(await confirm.isDisabled()).toBe(true);
    // The acting admin may not take Bo's chats for themself (only the admin token may): not offered as heir.
    expect(await dialog.getByLabel("Who receives the chats").locator("option").allInnerTexts()).not.toContain("Owner");
    await dialog.getByLabel("Delete their chats").check();
    expect(await axeSerious(owner.page)).toEqual([]);
    if (SHOTS) await owner.page.screenshot({ path: `${SHOTS}people-remove-phone.png` });
    await confirm.click();
    await expect.poll(() => owner.page.locator(".person strong").allInnerTexts()).not.toContain("Bo");
    // Bo's browser is signed out at once: back to pairing, saying why.
    await bo.page.getByText("This device was removed from the server", { exact: false }).waitFor();
    await owner.context.close();
    await bo.context.close();
  });

  it("a device added for a person is announced on that person's other devices (PA4)", async () => {
    const first = await openPage(shared.browser, PHONE);
    await pairThroughLink(first.page, (await shared.stack.createPairing()).pair_url, "Kitchen tablet");
    const second = await openPage(shared.browser, PHONE);
    await pairThroughLink(second.page, (await shared.stack.createPairing()).pair_url, "Pixel 8");
    const notice = first.page.locator(".banner-stack", { hasText: "New device" });
    await notice.waitFor();
    expect(await notice.innerText()).toContain("Pixel 8");
    if (SHOTS) await first.page.screenshot({ path: `${SHOTS}people-new-device-phone.png` });
    await first.context.close();
    await second.context.close();
  });
});
