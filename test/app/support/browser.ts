// Chromium for the app tests (Debian's, installed by scripts/ensure-chromium.sh): one browser per test file, a fresh
// context (storage, service worker) per test, at a phone's or a desktop's size. Page errors are collected so a
// test can assert there were none.
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import type { AppStack } from "./app-stack.ts";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const PHONE = { width: 390, height: 844 } as const;
export const DESKTOP = { width: 1280, height: 800 } as const;

/** Where the app's screenshots go (docs/app/, ending in "/") when `APP_SCREENSHOTS=1` asks for them; otherwise none is
 *  written, so running the suite never changes the repository's files. */
export const SHOTS = process.env.APP_SCREENSHOTS
  ? fileURLToPath(new URL("../../../docs/app/", import.meta.url))
  : undefined;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

export interface AppPage {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

export async function openPage(
  browser: Browser,
  viewport: { width: number; height: number },
  options: { colorScheme?: "light" | "dark" } = {},
): Promise<AppPage> {
  const context = await browser.newContext({
    viewport,
    colorScheme: options.colorScheme ?? "light",
    hasTouch: viewport.width < 600,
    isMobile: false,
  });
  const errors: string[] = [];
  // A refusal by the page's Content-Security-Policy is an error too (docs/security.md "The app's page"), in every page
  // of the context: the browser reports it as an event in the page, which this script forwards.
  await context.addInitScript(`document.addEventListener("securitypolicyviolation", (event) =>
    console.error("${POLICY_VIOLATION} " + event.effectiveDirective + " " + event.blockedURI + " at " +
      event.sourceFile + ":" + event.lineNumber));`);
  context.on("console", (message) => {
    if (message.text().startsWith(POLICY_VIOLATION)) errors.push(message.text());
  });
  const page = await context.newPage();
  page.on("pageerror", (error) => errors.push(error.message));
  return { context, page, errors };
}

/** How a page's policy violation is told to the test (openPage). */
const POLICY_VIOLATION = "content-security-policy violation:";

/** The localStorage key of the name this browser pairs under (app/src/state/pairing.ts). */
export const DEVICE_NAME_KEY = "chat-relay.device-name";

/**
 * Opens pair_url, which pairs at once (under `deviceName`, when given, as if this browser had used that name
 * before); resolves once the paired frame shows.
 */
export async function pairThroughLink(page: Page, pairUrl: string, deviceName?: string): Promise<void> {
  if (deviceName)
    await page
      .context()
      .addInitScript(([key, name]) => localStorage.setItem(key!, JSON.stringify(name)), [DEVICE_NAME_KEY, deviceName]);
  await page.goto(pairUrl);
  await page.locator(".top-bar .connection").waitFor();
}

/** Pairs the page with the stack's server (pairThroughLink), then opens the chat `id` in it. */
export async function pairAndOpen(
  page: Page,
  stack: Pick<AppStack, "createPairing" | "serverUrl">,
  id: string,
): Promise<void> {
  await pairThroughLink(page, (await stack.createPairing()).pair_url);
  await page.goto(`${stack.serverUrl}/#/s/${id}`);
}
