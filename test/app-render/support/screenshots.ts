// Photographs the renderer's sample message (math, a task list, a long code block, two attached images) on a phone
// (390x844) and a desktop (1280x800), and the image dialog on a phone, for docs/app.md "Rendering".
//   node --import tsx test/app-render/support/screenshots.ts      writes the rendering-*.png files of docs/app/
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DESKTOP, launchBrowser, openPage, PHONE } from "../../app/support/browser.ts";
import { startHarness } from "./harness.ts";
import { PHOTO_PATH, photoBytes, sampleMessages } from "./sample.ts";

const outDir = fileURLToPath(new URL("../../../docs/app", import.meta.url));

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const [harness, browser] = await Promise.all([startHarness(), launchBrowser()]);
  harness.addFile(PHOTO_PATH, photoBytes(), "image/png");
  try {
    for (const [label, viewport] of [
      ["phone", PHONE],
      ["desktop", DESKTOP],
    ] as const) {
      const { page, context } = await openPage(browser, viewport);
      await page.goto(harness.url);
      await page.waitForFunction(() => "harness" in window);
      await page.evaluate((messages) => (window as any).harness.show(messages), sampleMessages(harness.url));
      await page.locator(".math-display .katex-display").waitFor();
      await page.waitForFunction(
        () => Array.from(document.images).every((image) => image.complete) && document.fonts.status === "loaded",
      );
      await page.screenshot({ path: join(outDir, `rendering-${label}.png`) });
      if (label === "phone") {
        await page.getByRole("button", { name: "View attached image 1 of 2" }).click();
        await page.getByRole("dialog").waitFor();
        await page.screenshot({ path: join(outDir, "rendering-image-phone.png") });
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await harness.close();
  }
  process.stdout.write(`screenshots in ${outDir}\n`);
}

await main();
