// The app's end of end-to-end encryption in Chromium (docs/security.md S16): pairing by typed code shows the server
// key's fingerprint, the one POST /pairing (and npm run pair) shows, before the app goes on; the device pairs
// encrypting and chats over sealed events.
import { describe, expect, it, vi } from "vitest";
import { PHONE } from "./support/browser.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const shared = useAppBrowser({ pagePerTest: PHONE });

describe("pairing by typed code", () => {
  it("S16: shows the server fingerprint to compare, then opens on the composer as an encrypting device", async () => {
    const { page } = shared.app;
    const { code } = await shared.stack.createPairing();
    await page.goto(`${shared.stack.serverUrl}/#/pair`);
    await page.getByLabel("Pairing code").fill(code);
    await page.getByLabel("Bridge address").fill(shared.stack.bridgeUrl);
    await page.getByRole("button", { name: "Pair", exact: true }).click();
    const shown = page.getByLabel("Server fingerprint");
    await shown.waitFor();
    expect(await shown.textContent()).toBe(shared.stack.server.runtime.ctx.e2e.fingerprint);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("textbox", { name: "Message" }).waitFor();
    const devices = (await shared.stack.server.request({ method: "GET", url: "/devices" })).json.devices as Array<{
      mode: string;
    }>;
    expect(devices.map((device) => device.mode)).toEqual(["e2e"]);
    // The encryption's libraries ran under the page's policy with no refusal, and threw nothing.
    expect(shared.app.errors).toEqual([]);
  });
});
