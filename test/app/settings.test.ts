// Settings in Chromium over a real server and bridge (docs/app.md "Settings"), at 390x844 and 1280x800: Connections
// → Test shows the scripted backend's models and latency; a prompt saved in the library is inserted in the composer
// by typing "/" and choosing it with the keyboard. axe finds no serious violation on the settings screens.
// APP_SCREENSHOTS=1 also writes each settings screen to docs/app/ (settings-connections-phone.png and the rest).
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { ADMIN_TOKEN } from "../support/server.ts";
import { axeSerious } from "./support/axe.ts";
import { DESKTOP, openPage, PHONE, SHOTS } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });
const shared = useAppBrowser();

// An agent beside the default one, and a member who may use only it: Agents shows who may use each.
beforeAll(async () => {
  const server = shared.stack.server;
  const { revision } = (await server.request({ method: "GET", url: "/settings" })).json;
  // Agents named in the settings replace the implicit "default", so it is named too.
  const agents = { default: { provider_id: "default" }, helper: { provider_id: "default", system_prompt: "Help." } };
  const patch = { agents };
  const patched = await server.request({
    method: "PATCH",
    url: "/settings",
    payload: { expected_revision: revision, patch },
  });
  expect(patched.status, patched.text).toBe(200);
  const ann = await server.request({ method: "POST", url: "/people", payload: { name: "Ann", agents: ["helper"] } });
  expect(ann.status, ann.text).toBe(201);
});

async function pairedPage(viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(shared.browser, viewport);
  await opened.page.goto((await shared.stack.createPairing()).pair_url);
  await opened.page.locator('.connection[data-state="live"]').waitFor();
  return opened;
}

async function openSettings(page: Page, section: string): Promise<void> {
  await page.locator("summary[aria-label=Menu]").click();
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: section }).click();
}

describe.each([
  ["phone", PHONE],
  ["desktop", DESKTOP],
] as const)("Settings (%s)", (label, viewport) => {
  it("Connections → Test lists the scripted backend's models with the latency", async () => {
    const { page, errors } = await pairedPage(viewport);
    await openSettings(page, "Connections");
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Unlock" }).click();
    const card = page.locator(".provider-card").filter({ hasText: "default" });
    await card.getByRole("button", { name: "Test", exact: true }).click();
    await expect.poll(() => card.getByRole("status").textContent()).toMatch(/Answered in \d+ ms with 2 models/);
    const models = await card
      .getByRole("checkbox")
      .evaluateAll((boxes) => boxes.map((box) => box.parentElement!.textContent!.trim()));
    expect(models).toEqual(expect.arrayContaining(["scripted-large", "scripted-small"]));
    expect(await axeSerious(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}settings-connections-${label}.png` });
    for (const section of ["Agents", "MCP servers"]) {
      await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: section }).click();
      await page.getByRole("region", { name: section }).waitFor();
      // Who may use an agent is read from the people: Owner may use every agent, Ann only "helper".
      if (section === "Agents")
        await expect
          .poll(() => page.locator("li.card").filter({ hasText: "helper" }).locator(".agent-users").textContent())
          .toBe("Used by: Owner, Ann");
      expect(await axeSerious(page)).toEqual([]);
      if (SHOTS)
        await page.screenshot({ path: `${SHOTS}settings-${section.split(" ")[0]!.toLowerCase()}-${label}.png` });
    }
    expect(errors).toEqual([]);
  });

  it('inserts a prompt saved in the library when "/" is typed in the composer', async () => {
    const { page, errors } = await pairedPage(viewport);
    await openSettings(page, "Personal");
    const library = page.getByRole("region", { name: "Prompt library" });
    await library.getByRole("button", { name: "New prompt" }).click();
    await library.getByLabel("Title").fill(`Summarize ${label}`);
    await library.getByLabel("Text").fill("Summarize the text below in three lines:");
    await library.getByRole("button", { name: "Save prompt" }).click();
    await library.getByText(`Summarize ${label}`).waitFor();
    expect(await axeSerious(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}settings-personal-${label}.png` });

    await page.goto(page.url().replace(/#.*$/, "#/new"));
    const box = page.getByRole("textbox", { name: "Message" });
    await box.click();
    await page.keyboard.type(`/summ`);
    const list = page.getByRole("listbox", { name: "Prompts" });
    await list.getByRole("option", { name: new RegExp(`Summarize ${label}`) }).waitFor();
    await page.keyboard.press("Enter");
    await expect.poll(() => box.inputValue()).toBe("Summarize the text below in three lines:");
    expect(await list.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("Data → Export my chats saves every chat as one JSON file in the export format", async () => {
    const ids = [await shared.stack.createSession(), await shared.stack.createSession()];
    const { page, errors } = await pairedPage(viewport);
    await openSettings(page, "Data");
    const saved = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export my chats" }).click();
    const download = await saved;
    expect(download.suggestedFilename()).toBe("my-chats.json");
    const records = JSON.parse(readFileSync((await download.path())!, "utf8")) as Array<{ session: { id: string } }>;
    expect(records.map((record) => record.session.id)).toEqual(expect.arrayContaining(ids));
    const data = page.getByRole("region", { name: "Export my chats" });
    await expect.poll(() => data.getByRole("status").textContent()).toMatch(/Exported \d+ chats/);
    expect(await axeSerious(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}settings-data-${label}.png` });
    expect(errors).toEqual([]);
  });

  it("Data → Import chats (admin) imports ChatGPT's conversations.json and says what came of it", async () => {
    const { page, errors } = await pairedPage(viewport);
    await openSettings(page, "Data");
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Unlock" }).click();
    const importer = page.getByRole("region", { name: "Import chats" });
    const file = {
      name: "conversations.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify([chatgptConversation(`imported-${label}`)])),
    };
    await importer.getByLabel("Chats file").setInputFiles(file);
    await expect
      .poll(() => importer.getByRole("status").textContent())
      .toBe("Imported 1 chat, skipped 0 already here.");
    await importer.getByLabel("Chats file").setInputFiles(file);
    await expect
      .poll(() => importer.getByRole("status").textContent())
      .toBe("Imported 0 chats, skipped 1 already here.");
    expect(await axeSerious(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}settings-import-${label}.png`, fullPage: true });
    await importer.getByLabel("Chats file").setInputFiles({ ...file, buffer: Buffer.from('{"not": "an array"}') });
    await expect.poll(() => importer.getByRole("status").textContent()).toMatch(/^Not imported: .*array/);
    expect(errors).toEqual([]);
  });
});

/** A two-message ChatGPT conversation, as its conversations.json holds it. */
function chatgptConversation(id: string): Record<string, unknown> {
  const message = (n: number, role: string, text: string) => ({
    id: `${id}-m${n}`,
    parent: n === 0 ? `${id}-root` : `${id}-m${n - 1}`,
    children: n === 0 ? [`${id}-m1`] : [],
    message: {
      id: `${id}-m${n}`,
      author: { role },
      create_time: n + 1,
      content: { content_type: "text", parts: [text] },
    },
  });
  const mapping = {
    [`${id}-root`]: { id: `${id}-root`, parent: null, children: [`${id}-m0`], message: null },
    [`${id}-m0`]: message(0, "user", "Where is the key?"),
    [`${id}-m1`]: message(1, "assistant", "Under the mat."),
  };
  return { title: `Chat ${id}`, mapping, current_node: `${id}-m1`, conversation_id: id };
}
