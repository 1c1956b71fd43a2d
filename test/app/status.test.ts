// Honest status in Chromium (docs/app.md B2): with the server stopped and the bridge up, the badge reads "Server
// offline" (not the network) and a message written meanwhile waits on the device ("Waiting to send"); once the server
// is back the badge is "Live" again and the message goes.
import { describe, expect, it, vi } from "vitest";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

describe("connection status", () => {
  it("says the server is offline when it is stopped with the bridge up, then Live when it is back (B2)", async () => {
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    await pairThroughLink(page, (await shared.stack.createPairing()).pair_url);
    await page.locator('.connection[data-state="live"]').waitFor();
    await shared.stack.stopServer();
    try {
      const message = page.getByRole("textbox", { name: "Message" });
      await message.fill("is anyone there?");
      await message.press("Enter");
      await page.locator(".waiting-message", { hasText: "is anyone there?" }).getByText("Waiting to send").waitFor();
      await page.locator('.connection[data-state="server_offline"]', { hasText: "Server offline" }).waitFor();
    } finally {
      await shared.stack.startServer();
    }
    await page.locator('.connection[data-state="live"]').waitFor();
    await page.locator(".waiting-message").waitFor({ state: "detached" });
    // Sent once the server is back: the store holds it (a chat started offline stays on #/new once sent).
    const sent = async () =>
      (await shared.stack.storeEvents()).filter(
        (event) => event.type === "message_appended" && JSON.stringify(event).includes("is anyone there?"),
      ).length;
    await expect.poll(sent, { timeout: 30_000 }).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});
