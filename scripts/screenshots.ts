// Photographs every screen of the app for docs/app.md, on a phone (390x844) and a desktop (1280x800), plus the
// chat in dark mode: a seeded stack (the accessibility test's tour), Chromium through playwright-core.
//   node --import tsx scripts/screenshots.ts            writes docs/app/<screen>-<phone|desktop>.png
//   node --import tsx scripts/screenshots.ts chat …     only the stops named (the tour's names: chat, new-chat, …)
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureAppBuilt } from "./build-app.ts";
import { AppStack } from "../test/app/support/app-stack.ts";
import { DESKTOP, launchBrowser, openPage, PHONE } from "../test/app/support/browser.ts";
import { pairPage, seed, STOPS } from "../test/app/support/tour.ts";

const outDir = fileURLToPath(new URL("../docs/app", import.meta.url));
const only = process.argv.slice(2);

async function main(): Promise<void> {
  await ensureAppBuilt();
  mkdirSync(outDir, { recursive: true });
  const [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
  try {
    const seeded = seed(stack);
    const sizes = [
      ["phone", PHONE, "light"],
      ["desktop", DESKTOP, "light"],
      ["phone-dark", PHONE, "dark"],
    ] as const;
    for (const [label, viewport, colorScheme] of sizes) {
      const fresh = await openPage(browser, viewport, { colorScheme });
      const paired = await openPage(browser, viewport, { colorScheme });
      await pairPage(paired.page, stack, `Screenshots (${label})`);
      const stops = (
        colorScheme === "dark" ? STOPS.filter((stop) => stop.name === "chat" || stop.name === "chats") : STOPS
      ).filter((stop) => only.length === 0 || only.includes(stop.name));
      for (const stop of stops) {
        const page = stop.paired ? paired.page : fresh.page;
        await stop.visit(page, stack, seeded);
        const file = join(outDir, `${stop.name}-${label}.png`);
        await page.screenshot({ path: file });
        process.stdout.write(`${file}\n`);
      }
      await fresh.context.close();
      await paired.context.close();
    }
  } finally {
    await browser.close();
    await stack.close();
  }
}

await main();
