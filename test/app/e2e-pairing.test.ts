// The app's end of end-to-end encryption in Chromium (docs/security.md S16): pairing by typed code shows the server
// key's fingerprint, the one POST /pairing (and npm run pair) shows, before the app goes on; the device pairs
// encrypting and chats over sealed events.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AppStack } from "./support/app-stack.ts";
import { launchBrowser, openPage, PHONE, type AppPage } from "./support/browser.ts";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
let stack: AppStack;
let browser: Browser;
let app: AppPage;

beforeAll(async () => {
  [stack, browser] = await Promise.all([AppStack.startApp(), launchBrowser()]);
  app = await openPage(browser, PHONE);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe("pairing by typed code", () => {
  it("S16: shows the server fingerprint to compare, then opens on the composer as an encrypting device", async () => {
    const { code } = await stack.createPairing();
    await app.page.goto(`${stack.serverUrl}/#/pair`);
    await app.page.getByLabel("Pairing code").fill(code);
    await app.page.getByLabel("Bridge address").fill(stack.bridgeUrl);
    await app.page.getByRole("button", { name: "Pair", exact: true }).click();
    const shown = app.page.getByLabel("Server fingerprint");
    await shown.waitFor();
    expect(await shown.textContent()).toBe(stack.server.runtime.ctx.e2e.fingerprint);
    await app.page.getByRole("button", { name: "Continue" }).click();
    await app.page.getByRole("textbox", { name: "Message" }).waitFor();
    const devices = (await stack.server.request({ method: "GET", url: "/devices" })).json.devices as Array<{
      mode: string;
    }>;
    expect(devices.map((device) => device.mode)).toEqual(["e2e"]);
  });
});
