// The first run in Chromium (docs/app.md P1-P5): the link `npm start` prints (no bridge in it) pairs a fresh
// browser in one step and lands in a new chat, with the code out of the address bar before pairing starts; a
// browser already paired ignores a link; a used link says how to get a new one; Devices → Add device shows the link
// as text with a Copy button; the typed-code screen takes the bridge address from /app-config.json.
import { describe, expect, it, vi } from "vitest";
import { ADMIN_TOKEN } from "../support/server.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { openPage, pairThroughLink, PHONE, DESKTOP } from "./support/browser.ts";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/** The printed form of a pairing link: `http://<host>:<port>/#/pair?code=…` (the bridge left to /app-config.json). */
function printedLink(pairUrl: string): string {
  const [base, query = ""] = pairUrl.split("#/pair?");
  const params = new URLSearchParams(query);
  params.delete("bridge");
  return `${base}#/pair?${params.toString()}`;
}

describe("first run", () => {
  it("opens the printed link: pairs in one step, the code gone from the address bar before pairing, lands in a new chat (P1)", async () => {
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    // Where the address bar was when the page opened its first WebSocket (the pairing).
    await context.addInitScript(() => {
      const Native = WebSocket;
      (window as unknown as { WebSocket: unknown }).WebSocket = class extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols);
          (window as unknown as { hashAtFirstSocket?: string }).hashAtFirstSocket ??= location.hash;
        }
      };
    });
    const link = printedLink((await shared.stack.createPairing()).pair_url);
    expect(link).not.toContain("bridge=");
    await page.goto(link);
    await page.getByRole("textbox", { name: "Message" }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/new");
    expect(await page.evaluate(() => (window as unknown as { hashAtFirstSocket?: string }).hashAtFirstSocket)).toBe(
      "#/pair",
    );
    await page.locator('.connection[data-state="live"]').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a browser already paired ignores a link, which stays usable (P2)", async () => {
    const { context, page } = await openPage(shared.browser, PHONE);
    await pairThroughLink(page, (await shared.stack.createPairing()).pair_url);
    const before = (await shared.stack.devices()).length;
    const second = (await shared.stack.createPairing()).pair_url;
    await page.goto(second);
    await page
      .getByRole("link", { name: "New chat" })
      .or(page.getByRole("textbox", { name: "Message" }))
      .first()
      .waitFor();
    expect(new URL(page.url()).hash).toBe("#/");
    expect((await shared.stack.devices()).length).toBe(before);
    // The code was not spent: a fresh browser pairs with it.
    const fresh = await openPage(shared.browser, PHONE);
    await pairThroughLink(fresh.page, second);
    expect((await shared.stack.devices()).length).toBe(before + 1);
    await fresh.context.close();
    await context.close();
  });

  it("a used link says it was used and how to get a new one (P3)", async () => {
    const { context, page } = await openPage(shared.browser, PHONE);
    const { pair_url } = await shared.stack.createPairing();
    const first = await openPage(shared.browser, PHONE);
    await pairThroughLink(first.page, pair_url);
    await page.goto(pair_url);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.innerText()).toContain("This pairing link was already used or has expired");
    expect(await alert.innerText()).toContain("npm run pair");
    await first.context.close();
    await context.close();
  });

  it("Devices → Add device shows the link as text, and Copy puts it on the clipboard (P4)", async () => {
    const { context, page, errors } = await openPage(shared.browser, DESKTOP);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: shared.stack.serverUrl });
    await page.goto(`${shared.stack.serverUrl}/#/devices`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Unlock" }).click();
    await page.getByRole("button", { name: "Add device" }).click();
    const group = page.getByRole("group", { name: "Pairing link" });
    const shown = await group.getByRole("link").innerText();
    expect(shown).toMatch(/#\/pair\?code=/);
    await page.locator("img.qr").waitFor();
    await group.getByRole("button", { name: "Copy" }).click();
    await page.getByText("Copied", { exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shown);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the typed-code screen takes the bridge address from /app-config.json, so a code pairs with nothing else typed (P5)", async () => {
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    await page.goto(`${shared.stack.serverUrl}/#/pair`);
    // The stack's bridge is on a random port: the old guess (port 4000 of this host) would be wrong.
    expect(shared.stack.bridgeUrl).not.toContain(":4000/");
    await expect.poll(() => page.getByLabel("Bridge address").inputValue()).toBe(shared.stack.bridgeUrl);
    await page.getByLabel("Pairing code").fill((await shared.stack.createPairing()).code);
    await page.getByRole("button", { name: "Pair", exact: true }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("textbox", { name: "Message" }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
