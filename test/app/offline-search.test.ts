// Offline reading with images, offline search and a chat started offline, in Chromium (docs/app.md "Offline" OF7,
// OF8, OF9). Offline here is the server and the bridge really stopped, not the page's offline switch: the service
// worker's shell opens the app, IndexedDB holds the chats opened before with their images, the search box searches
// them on this device, and a message written on #/new waits, then becomes the real chat once the server is back.
import { describe, expect, it, vi } from "vitest";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { offlineStoreKeys } from "./support/offline-db.ts";
import { appendPhoto, thumbnailShown } from "./support/photo-chat.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE, SHOTS } from "./support/browser.ts";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

describe("offline search and images", () => {
  it("with the server and bridge stopped, a chat opened before shows its image, search finds its words on this device, a chat never opened says so, and a new chat written offline becomes the real chat when the server is back (OF7-OF9)", async () => {
    const { stack } = shared;
    const opened = await stack.createSession();
    const { stored, appended, asset_id } = await appendPhoto(
      stack,
      opened,
      "quince.png",
      "Our quince harvest this autumn, photographed",
    );
    expect(stored.status).toBe(201);
    expect(appended.status).toBe(201);
    await stack.server.request({ method: "PATCH", url: `/sessions/${opened}`, payload: { title: "Garden notes" } });
    const never = await stack.createSession();
    await stack.append(never, "A quince jelly recipe, never opened on the phone");

    const { context, page, errors } = await openPage(shared.browser, PHONE);
    await pairThroughLink(page, (await stack.createPairing()).pair_url);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.goto(`${stack.serverUrl}/#/s/${opened}`);
    await page.locator('article[data-role="user"]', { hasText: "quince harvest" }).waitFor();
    await vi.waitFor(async () => expect(await thumbnailShown(page)).toBe(true), { timeout: 30_000 });
    // The image is kept with the chat, in the offline cache's database (the one the worker deletes on revocation).
    await vi.waitFor(async () => expect(await offlineStoreKeys(page, "assets")).toEqual([`${opened}/${asset_id}`]), {
      timeout: 30_000,
    });

    await stack.stopServer();
    await stack.stopBridge();
    let restarted = false;
    try {
      await page.reload();
      await page.locator('article[data-role="user"]', { hasText: "quince harvest" }).waitFor();
      await page.getByText("You are offline: these are the last loaded messages").waitFor();
      await vi.waitFor(async () => expect(await thumbnailShown(page)).toBe(true), { timeout: 30_000 });

      await page.getByRole("button", { name: "Search chats" }).click();
      await page.getByRole("searchbox", { name: "Search chats" }).fill("QUINCE harv");
      const results = page.getByRole("list", { name: "Search results" });
      await results.getByRole("link").first().waitFor();
      expect(await results.getByRole("link").allTextContents()).toEqual([
        expect.stringContaining("Our quince harvest this autumn"),
      ]);
      await page.getByText("these results are from this device").waitFor();
      for (const [path, size] of [
        ["offline-search-phone.png", PHONE],
        ["offline-search-desktop.png", DESKTOP],
      ] as const) {
        await page.setViewportSize(size);
        if (SHOTS) await page.screenshot({ path: SHOTS + path });
      }
      await page.setViewportSize(PHONE);
      await page.getByRole("searchbox", { name: "Search chats" }).fill("jelly");
      await page.getByText("No chat kept on this device matches “jelly”.").waitFor();
      await page.keyboard.press("Escape");

      await page.goto(`${stack.serverUrl}/#/s/${never}`);
      await page.getByText("This chat is not available offline").waitFor();

      await page.goto(`${stack.serverUrl}/#/new`);
      const box = page.getByRole("textbox", { name: "Message" });
      await box.fill("a chat started underground");
      await box.press("Enter");
      await page
        .locator(".waiting-message", { hasText: "a chat started underground" })
        .getByText("Waiting to send")
        .waitFor();
      // Its address carries its client_session_id, so a reload finds it (OB10).
      expect(new URL(page.url()).hash).toMatch(/^#\/new\/cs/);

      await stack.startBridge();
      await stack.startServer();
      restarted = true;
      await page.waitForURL(/#\/s\//, { timeout: 90_000 });
      const created = new URL(page.url()).hash.slice("#/s/".length);
      expect([opened, never]).not.toContain(created);
      await page
        .locator('article[data-role="user"]', { hasText: "a chat started underground" })
        .waitFor({ timeout: 60_000 });
      await page.locator(".waiting-message").waitFor({ state: "detached", timeout: 60_000 });
      const messages = await stack.server.request({ method: "GET", url: `/sessions/${created}/messages` });
      expect((messages.json as { messages: Array<{ content: string }> }).messages[0]?.content).toBe(
        "a chat started underground",
      );
      expect(errors).toEqual([]);
    } finally {
      if (!restarted) {
        await stack.startBridge();
        await stack.startServer();
      }
      await context.close();
    }
  });
});
