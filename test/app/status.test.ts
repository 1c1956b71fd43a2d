// Honest status in Chromium (docs/app.md B2): with the server stopped and the bridge up, a send says the server is
// offline (not the network) and keeps the text, the badge reads "Server offline", and it is back to "Live" once the
// server is.
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
      const alert = page.getByRole("alert").filter({ hasText: "Not sent" });
      await alert.waitFor();
      expect(await alert.innerText()).toContain("your server is offline");
      expect(await message.inputValue()).toBe("is anyone there?");
      await page.locator('.connection[data-state="server_offline"]', { hasText: "Server offline" }).waitFor();
    } finally {
      await shared.stack.startServer();
    }
    await page.locator('.connection[data-state="live"]').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
