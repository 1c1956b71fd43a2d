// The PDF viewer (docs/documents.md "In the app", DA10-DA11) in Chromium, with the app reaching the server only
// through the bridge (server_url is a port nothing listens on, so every call is relayed and sealed): a five-page PDF
// made by pdf-lib is attached and sent, the scripted backend answers with [1], which retrieval points at page 3, and
// the citation opens page 3 drawn on a canvas by pdf.js (its file fetched in parts through the relay, its worker
// served by the app), the cited passage marked in the text layer over the drawn text. A viewer whose renderer cannot
// be fetched shows the page's text, passage marked, and says why.
// APP_SCREENSHOTS=1 also writes the viewer's screenshots of docs/app/.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { closedPort } from "../relay/stack.ts";
import { pdfWith } from "../documents/files.ts";
import { axeSerious } from "./support/axe.ts";
import { AppStack } from "./support/app-stack.ts";
import { DESKTOP, launchBrowser, openPage, PHONE, SHOTS } from "./support/browser.ts";

// A browser on two shared cores and a PDF read through the relay: generous bounds; nothing here asserts a duration.
vi.setConfig({ testTimeout: 150_000, hookTimeout: 90_000 });

const REPORT = [
  "Annual report of the harbour authority.",
  "Chapter one: the ferries and their crews.",
  "The lighthouse keeper logs every passing ship at night.",
  "Chapter three: budgets for the coming year.",
  "Appendix: tide tables for the spring.",
];

let stack: AppStack;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  const unreachable = `http://127.0.0.1:${await closedPort()}`;
  [stack, browser] = await Promise.all([
    AppStack.startApp({}, { publicUrl: unreachable, appOnBridge: true }),
    launchBrowser(),
  ]);
  ({ page, errors } = await openPage(browser, PHONE));
  await page.goto((await stack.createPairing()).pair_url);
  await page.locator('.connection[data-state="live"]').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const message = () => page.getByRole("textbox", { name: "Message" });
const viewer = () => page.getByRole("dialog", { name: "report.pdf, page 3" });

/** What the canvas holds: its dark pixels in all, and under the first mark's box. */
async function canvasInk(): Promise<{ all: number; underMark: number }> {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>(".pdf-page canvas")!;
    const context = canvas.getContext("2d")!;
    const dark = (x: number, y: number, width: number, height: number) => {
      const data = context.getImageData(x, y, Math.max(1, width), Math.max(1, height)).data;
      let count = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! < 128 && data[i + 3]! > 0) count++;
      return count;
    };
    const box = canvas.getBoundingClientRect();
    const mark = document.querySelector(".pdf-page mark")!.getBoundingClientRect();
    const scale = canvas.width / box.width;
    const at = (value: number) => Math.round(value * scale);
    return {
      all: dark(0, 0, canvas.width, canvas.height),
      underMark: dark(at(mark.left - box.left), at(mark.top - box.top), at(mark.width), at(mark.height)),
    };
  });
}

describe("the PDF viewer through the bridge", () => {
  it("DA10 [1] opens page 3 of five rendered, the passage marked over its drawn text; pages on; a desktop too", async () => {
    await page.goto(`${stack.bridgeAppUrl}#/new`);
    await message().waitFor();
    await page
      .locator('input[type="file"]')
      .setInputFiles({ name: "report.pdf", mimeType: "application/pdf", buffer: Buffer.from(await pdfWith(REPORT)) });
    await page.locator(".attachment-tray .document-chip").getByText("5 pages").waitFor();
    stack.backend.script(dialectStream("openai", { content: "The keeper logs them [1]." }));
    await message().fill("Who logs every passing ship at night?");
    await message().press("Enter");
    const cite = page.locator('article[data-role="assistant"]').getByRole("link", { name: "[1]" });
    await cite.waitFor();
    expect(await cite.getAttribute("title")).toBe("report.pdf, page 3");

    await cite.click();
    await viewer().locator('.pdf-page[data-drawn="yes"]').waitFor();
    expect(await viewer().getAttribute("data-view")).toBe("pdf");
    expect(await viewer().locator(".pdf-page mark").textContent()).toBe(REPORT[2]);
    const ink = await canvasInk();
    expect(ink.all).toBeGreaterThan(100);
    expect(ink.underMark).toBeGreaterThan(20);
    expect(await viewer().getByRole("img", { name: "Page 3 of report.pdf" }).count()).toBe(1);
    expect(await axeSerious(page)).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}pdf-viewer-phone.png` });

    await viewer().getByRole("button", { name: "Next page" }).click();
    const fourth = page.getByRole("dialog", { name: "report.pdf, page 4" });
    await fourth.locator('.pdf-page[data-drawn="yes"]').waitFor();
    await fourth.locator(".textLayer").getByText(REPORT[3]!).waitFor({ state: "attached" });
    await fourth.getByRole("button", { name: "Next page" }).click();
    const fifth = page.getByRole("dialog", { name: "report.pdf, page 5" });
    await fifth.locator('.pdf-page[data-drawn="yes"]').waitFor();
    expect(await fifth.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    await page.keyboard.press("Escape");
    await fifth.waitFor({ state: "detached" });

    await page.setViewportSize(DESKTOP);
    await cite.click();
    await viewer().locator('.pdf-page[data-drawn="yes"]').waitFor();
    expect(await viewer().locator(".pdf-page mark").textContent()).toBe(REPORT[2]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}pdf-viewer-desktop.png` });
    await page.keyboard.press("Escape");
    await page.setViewportSize(PHONE);
    expect(errors).toEqual([]);
  });

  it("DA11 a viewer whose renderer cannot be fetched shows the page's text, the passage marked, and says why", async () => {
    await page.route(/\/assets\/pdf-render-[^/]*\.js$/, (route) => route.abort());
    await page.reload();
    const cite = page.locator('article[data-role="assistant"]').getByRole("link", { name: "[1]" });
    await cite.waitFor();
    await cite.click();
    await viewer().getByRole("status").getByText("The PDF viewer could not be loaded").waitFor();
    expect(await viewer().getAttribute("data-view")).toBe("text");
    expect(await viewer().locator(".document-text mark").textContent()).toBe(REPORT[2]);
    expect(await viewer().locator("canvas").count()).toBe(0);
    await page.unroute(/\/assets\/pdf-render-[^/]*\.js$/);
    await page.keyboard.press("Escape");
  });
});
