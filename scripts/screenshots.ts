// Photographs every screen of the app for docs/app.md, on a phone (390x844) and a desktop (1280x800), plus the
// chat in dark mode: a seeded stack (the accessibility test's tour), Chromium through playwright-core. Runs on its own,
// outside vitest (test/architecture/standalone-scripts.test.ts keeps it so):
//   node --import tsx scripts/screenshots.ts            writes docs/app/<screen>-<phone|desktop>.png
//   node --import tsx scripts/screenshots.ts chat …     only the stops named (the tour's names: chat, new-chat, …)
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { ensureAppBuilt } from "./build-app.ts";
import { AppStack } from "../test/app/support/app-stack.ts";
import { DESKTOP, launchBrowser, openPage, PHONE } from "../test/app/support/browser.ts";
import { pairPage, seed, STOPS } from "../test/app/support/tour.ts";

const outDir = fileURLToPath(new URL("../docs/app", import.meta.url));
const only = process.argv.slice(2);

const SIZES = [
  { label: "phone", viewport: PHONE, colorScheme: "light" },
  { label: "desktop", viewport: DESKTOP, colorScheme: "light" },
  { label: "phone-dark", viewport: PHONE, colorScheme: "dark" },
] as const;

type Size = (typeof SIZES)[number];

/** The stops to photograph at `size`: in dark mode only the chat list and the chat. */
function stopsFor(size: Size): typeof STOPS {
  const shown = size.colorScheme === "dark" ? ["chat", "chats"] : STOPS.map((stop) => stop.name);
  return STOPS.filter((stop) => shown.includes(stop.name) && (only.length === 0 || only.includes(stop.name)));
}

/**
 * One size's pictures, over a stack of its own: the stops change what they visit (a chat archived, a reply
 * regenerated), so every size starts from the same seeded chats and the pictures of its sizes show the same state.
 */
async function photograph(browser: Browser, size: Size): Promise<void> {
  const stack = await AppStack.startApp();
  try {
    const seeded = seed(stack);
    const fresh = await openPage(browser, size.viewport, { colorScheme: size.colorScheme });
    const paired = await openPage(browser, size.viewport, { colorScheme: size.colorScheme });
    await pairPage(paired.page, stack, `Screenshots (${size.label})`);
    for (const stop of stopsFor(size)) {
      const page = stop.paired ? paired.page : fresh.page;
      await stop.visit(page, stack, seeded);
      const file = join(outDir, `${stop.name}-${size.label}.png`);
      await page.screenshot({ path: file });
      process.stdout.write(`${file}\n`);
    }
    await fresh.context.close();
    await paired.context.close();
  } finally {
    await stack.close();
  }
}

async function main(): Promise<void> {
  await ensureAppBuilt();
  mkdirSync(outDir, { recursive: true });
  const browser = await launchBrowser();
  try {
    for (const size of SIZES) if (stopsFor(size).length > 0) await photograph(browser, size);
  } finally {
    await browser.close();
  }
}

await main();
