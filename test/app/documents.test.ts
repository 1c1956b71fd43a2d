// Documents in the app (issue 33; docs/documents.md "In the app", invariants DA1-DA6) in Chromium over a real server,
// bridge and scripted backend: a PDF made by pdf-lib and a Markdown file made here are attached (pick, drop, "#" from
// the library, the share target), shown as chips that follow their reading, sent as {type: "document"}; the scripted
// backend answers with [1], which the server turns into a citation, and the app's link opens the cited page with the
// passage marked. axe-core finds no serious violation with the chip, the reply and the viewer shown.
// APP_SCREENSHOTS=1 also writes the documents screenshots of docs/app/.
import type { Page } from "playwright-core";
import { describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { pdfWith } from "../documents/files.ts";
import { axeSerious } from "./support/axe.ts";
import { DESKTOP, openPage, PHONE, SHOTS } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { freePort } from "../support/ports.ts";

vi.setConfig({ testTimeout: 150_000, hookTimeout: 90_000 });
const shared = useAppBrowser();

const LEASE = [
  "Lease agreement between Ana and Ben.",
  "Clause 7: the tenant pays the rent on the first day of each month.",
  "Clause 9: pets are allowed with written consent.",
];
const NOTES =
  "# Garden\n\nWater the basil every morning.\n\n## Winter\n\nBring the lemon tree inside before the first frost.\n";

async function pairedPage(viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(shared.browser, viewport);
  await opened.page.goto((await shared.stack.createPairing()).pair_url);
  await opened.page.locator('.connection[data-state="live"]').waitFor();
  await opened.page.goto(`${shared.stack.serverUrl}/#/new`);
  await message(opened.page).waitFor();
  return opened;
}

const message = (page: Page) => page.getByRole("textbox", { name: "Message" });

async function sessionMessages(
  sessionId: string,
): Promise<Array<{ role: string; content: string; metadata?: Record<string, unknown> }>> {
  return (await shared.stack.server.request({ method: "GET", url: `/sessions/${sessionId}/messages` })).json.messages;
}

const sessionOf = (page: Page) => decodeURIComponent(new URL(page.url()).hash.split("/")[2]!);

describe("documents in the app", () => {
  it("DA1-DA3 a picked PDF is a chip that follows its reading, goes as {type: document}, and [1] opens page 2 with the passage marked (phone)", async () => {
    const { page, errors } = await pairedPage(PHONE);
    const pdf = Buffer.from(await pdfWith(LEASE));
    await page
      .locator('input[type="file"]')
      .setInputFiles({ name: "lease.pdf", mimeType: "application/pdf", buffer: pdf });
    const chip = page.locator(".attachment-tray .document-chip", { hasText: "lease.pdf" });
    await chip.getByText("3 pages").waitFor();
    expect(await chip.textContent()).toContain("PDF ·");
    expect(await axeSerious(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}document-attached-phone.png` });

    shared.stack.backend.script(dialectStream("openai", { content: "Rent is due on the first day [1]." }));
    await message(page).fill("When is the rent due?");
    await message(page).press("Enter");
    const reply = page.locator('article[data-role="assistant"]', { hasText: "Rent is due" });
    const cite = reply.getByRole("link", { name: "[1]" });
    await cite.waitFor();
    expect(await page.locator(".attachment-tray").count()).toBe(0);
    await page.locator('article[data-role="user"]').getByRole("button", { name: "Open lease.pdf" }).waitFor();
    const sent = (await sessionMessages(sessionOf(page))).find((entry) => entry.content === "When is the rent due?");
    const attached = sent?.metadata?.attachments as Array<{ type: string; document_id: string }>;
    expect(attached).toEqual([{ type: "document", document_id: expect.any(String) }]);

    await cite.click();
    const viewer = page.getByRole("dialog", { name: "lease.pdf, page 2" });
    await viewer.locator("mark").waitFor();
    expect(await viewer.locator("mark").textContent()).toBe(LEASE[1]);
    expect(page.url()).not.toContain("#cite-");
    expect(await axeSerious(page)).toEqual([]);
    if (SHOTS) {
      // the page drawn by the PDF viewer, as a person sees it once it has loaded
      await viewer.locator('.pdf-page[data-drawn="yes"]').waitFor();
      await page.screenshot({ path: `${SHOTS}document-citation-phone.png` });
    }
    await viewer.getByRole("button", { name: "Next page" }).click();
    await page.getByRole("dialog", { name: "lease.pdf, page 3" }).getByText(LEASE[2]!).waitFor();
    await page.keyboard.press("Escape");
    await viewer.waitFor({ state: "detached" });
    expect(errors).toEqual([]);
  });

  it("DA4 a dropped Markdown file can be removed before sending, then attached from the library with '#' (desktop)", async () => {
    const { page, errors } = await pairedPage(DESKTOP);
    await dropFile(page, "notes.md", NOTES);
    const chip = page.locator(".attachment-tray .document-chip", { hasText: "notes.md" });
    await chip.getByText("2 pages").waitFor();
    await chip.getByRole("button", { name: "Remove notes.md" }).click();
    await chip.waitFor({ state: "detached" });

    await message(page).fill("Ask #note");
    const picker = page.getByRole("list", { name: "Attach from your documents" });
    const choice = picker.getByRole("button", { name: /notes\.md/ }).first();
    await choice.waitFor();
    if (SHOTS) await page.screenshot({ path: `${SHOTS}document-library-desktop.png` });
    await choice.click();
    expect(await message(page).inputValue()).toBe("Ask ");
    await page.locator(".attachment-tray .document-chip", { hasText: "notes.md" }).getByText("2 pages").waitFor();
    expect(await axeSerious(page)).toEqual([]);

    shared.stack.backend.script(dialectStream("openai", { content: "Before the first frost [1]." }));
    await message(page).fill("When does the lemon tree come in?");
    await message(page).press("Enter");
    const cite = page
      .locator('article[data-role="assistant"]', { hasText: "Before the first frost" })
      .getByRole("link", { name: "[1]" });
    await cite.click();
    const viewer = page.getByRole("dialog", { name: "notes.md, section 2" });
    expect(await viewer.locator("mark").textContent()).toContain("Bring the lemon tree inside");
    if (SHOTS) await page.screenshot({ path: `${SHOTS}document-citation-desktop.png` });
    expect(errors).toEqual([]);
  });

  it("DA5 a file refused by the server says why on its chip, and the draft is not sent while it is there", async () => {
    const { page, errors } = await pairedPage(PHONE);
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x90, 0xc3]);
    await page
      .locator('input[type="file"]')
      .setInputFiles({ name: "broken.txt", mimeType: "text/plain", buffer: binary });
    const chip = page.locator(".attachment-tray .document-chip", { hasText: "broken.txt" });
    await chip
      .locator('[data-status="failed"], .document-meta')
      .getByText(/was not added/)
      .waitFor();
    await message(page).fill("read it");
    await message(page).press("Enter");
    await page.getByRole("alert").getByText('Remove "broken.txt": it was not added.').waitFor();
    expect(page.url()).toContain("#/new");
    expect(errors).toEqual([]);
  });

  it("DA6 Share -> chat-relay: the service worker takes the POST, and the new chat's composer holds the shared file", async () => {
    const { page, errors } = await pairedPage(PHONE);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    // The phone's share sheet posts to the share target as a navigation from outside the app. A form inside the app's
    // own page would be refused by its Content-Security-Policy (form-action 'none'), so a blank page of the same
    // browser posts it, as the system would.
    const target = new URL("./share-target", page.url()).href;
    const launcher = await page.context().newPage();
    await launcher.setContent(
      `<form method="POST" enctype="multipart/form-data" action="${target}">` +
        '<input type="file" name="files" id="shared-file"><input name="text" value="From my phone"></form>',
    );
    await launcher
      .locator("#shared-file")
      .setInputFiles({ name: "shared.md", mimeType: "text/markdown", buffer: Buffer.from(NOTES) });
    await launcher.evaluate(() =>
      (document.querySelector("#shared-file")!.closest("form") as HTMLFormElement).submit(),
    );
    await launcher.locator(".attachment-tray .document-chip", { hasText: "shared.md" }).getByText("2 pages").waitFor();
    expect(await message(launcher).inputValue()).toBe("From my phone");
    expect(new URL(launcher.url()).hash).toBe("#/new");
    await launcher.close();
    expect(errors).toEqual([]);
  });

  it("DA9 a pasted file is attached; an embedding model that is down: the reply says once, plainly, that documents were searched by their words only", async () => {
    const restore = await nameEmbeddingModel(`http://127.0.0.1:${await freePort()}/v1`);
    try {
      const { page, errors } = await pairedPage(DESKTOP);
      await pasteFile(page, "garden.md", NOTES);
      await page.locator(".attachment-tray .document-chip", { hasText: "garden.md" }).getByText("2 pages").waitFor();
      shared.stack.backend.script(dialectStream("openai", { content: "Water the basil [1]." }));
      await message(page).fill("When is the basil watered?");
      await message(page).press("Enter");
      const first = page.locator('article[data-role="assistant"]', { hasText: "Water the basil" });
      const notice = first.getByRole("note");
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/words only: .*embedder\/hash-384/);
      expect(await notice.locator("*").count()).toBe(0); // text only, nothing made of it

      shared.stack.backend.script(dialectStream("openai", { content: "Before the frost [1]." }));
      await message(page).fill("When does the lemon tree come in?");
      await message(page).press("Enter");
      await page.locator('article[data-role="assistant"]', { hasText: "Before the frost" }).waitFor();
      expect(await page.locator(".retrieval-notice").count()).toBe(1);
      await page.reload();
      await page.locator('article[data-role="assistant"]', { hasText: "Before the frost" }).waitFor();
      expect(await page.locator(".retrieval-notice").count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await restore();
    }
  });
});

/** Has the default agent name an embedding model served at `baseUrl`; resolves with what takes it back out. */
async function nameEmbeddingModel(baseUrl: string): Promise<() => Promise<void>> {
  const server = shared.stack.server;
  const patch = async (changes: Record<string, unknown>) => {
    const { revision } = (await server.request({ method: "GET", url: "/settings" })).json;
    const patched = await server.request({
      method: "PATCH",
      url: "/settings",
      payload: { expected_revision: revision, patch: changes },
    });
    expect(patched.status, patched.text).toBe(200);
  };
  await patch({
    providers: { embedder: { provider: "reference_compatible", model: "scripted", base_url: baseUrl } },
    agents: { default: { provider_id: "default", embedding: { provider_id: "embedder", model: "hash-384" } } },
  });
  return () => patch({ agents: { default: { embedding: null } }, providers: { embedder: null } });
}

/** Pastes a file into the message box, as a desktop's clipboard holding a copied file would. */
async function pasteFile(page: Page, name: string, text: string): Promise<void> {
  await message(page).evaluate(
    (box, [fileName, content]) => {
      const data = new DataTransfer();
      data.items.add(new File([content!], fileName!, { type: "text/markdown" }));
      box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    },
    [name, text],
  );
}

/** Drops a file on the composer as a desktop's file manager would (a DataTransfer holding it). */
async function dropFile(page: Page, name: string, text: string): Promise<void> {
  const transfer = await page.evaluateHandle(
    ([fileName, content]) => {
      const data = new DataTransfer();
      data.items.add(new File([content!], fileName!, { type: "text/markdown" }));
      return data;
    },
    [name, text],
  );
  await page.locator("form.composer").dispatchEvent("dragover", { dataTransfer: transfer });
  await page.locator("form.composer").dispatchEvent("drop", { dataTransfer: transfer });
}
