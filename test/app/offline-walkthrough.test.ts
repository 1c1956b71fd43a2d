// Offline as a new user meets it, in Chromium at phone size (docs/app.md "Offline", OF3, OF4, OF7, OF8, OB8, OB10):
// the server and the bridge stopped (not the page's offline switch), the app reopened from the service worker. The
// chat list says it shows what was loaded last; a chat opened before shows its messages and its image under "You
// are offline", with the composer queuing; a chat never opened says it is not available offline, its composer off;
// search finds the kept chat on this device; a chat started offline is listed. Then the device is revoked while the
// app is closed: at the next open nothing it kept is left (transcripts, images, the list, the message waiting) and
// the waiting message is never sent. With APP_SCREENSHOTS=1, screenshots of each offline state, phone and desktop, go to docs/app/.
import { describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import { completionBodies } from "../runner/helpers.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE, SHOTS } from "./support/browser.ts";
import { offlineCacheKeys } from "./support/offline-db.ts";
import { appendPhoto, thumbnailShown } from "./support/photo-chat.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

/**
 * Screenshots of the page as it is now, at phone size then desktop size, back to phone size after. `settled` waits
 * for what a resize lays out again (the desktop puts the chat beside the list: its thumbnail is read again).
 */
async function snap(page: Page, name: string, settled: () => Promise<void> = async () => undefined): Promise<void> {
  for (const [suffix, size] of [
    ["phone", PHONE],
    ["desktop", DESKTOP],
  ] as const) {
    await page.setViewportSize(size);
    await settled();
    if (SHOTS) await page.screenshot({ path: `${SHOTS}${name}-${suffix}.png` });
  }
  await page.setViewportSize(PHONE);
}

/** The word the connection badge reads now. */
const badge = async (page: Page) => (await page.locator('span.connection[role="status"]').innerText()).trim();

describe("offline, walked through as a new user", () => {
  it("reads kept chats with their images, says what is not kept, searches on the device, lists a chat started offline, and keeps nothing after a revocation (OF3, OF4, OF7, OF8, OB8, OB10)", async () => {
    const { stack } = shared;
    const opened = await stack.createSession();
    const { asset_id } = await appendPhoto(
      stack,
      opened,
      "tomatoes.png",
      "The tomato seedlings this week, photographed",
    );
    await stack.server.request({
      method: "POST",
      url: `/sessions/${opened}/messages`,
      payload: { role: "assistant", content: "They look healthy: water them in the morning." },
    });
    await stack.server.request({ method: "PATCH", url: `/sessions/${opened}`, payload: { title: "Tomato seedlings" } });
    const never = await stack.createSession();
    await stack.append(never, "Plans for the allotment shed");
    await stack.server.request({ method: "PATCH", url: `/sessions/${never}`, payload: { title: "Allotment shed" } });

    const { context, page, errors } = await openPage(shared.browser, PHONE);
    await pairThroughLink(page, (await stack.createPairing()).pair_url, "walkthrough phone");
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.goto(`${stack.serverUrl}/#/s/${opened}`);
    await page.locator('article[data-role="assistant"]', { hasText: "water them in the morning" }).waitFor();
    await vi.waitFor(async () => expect(await offlineCacheKeys(page)).toContain(`assets:${opened}/${asset_id}`), {
      timeout: 30_000,
    });

    await stack.stopServer();
    await stack.stopBridge();
    let restarted = false;
    try {
      // The list, from the device: what was loaded last, and says so.
      await page.goto(`${stack.serverUrl}/#/`);
      await page.reload();
      await page.getByText("Offline: showing the chats loaded last time.").waitFor();
      // The badge says what the page says (B3): Offline, not Connecting, with the server and the bridge both gone.
      await expect.poll(() => badge(page)).toBe("Offline");
      await page.getByRole("link", { name: /Tomato seedlings/ }).click();

      // A chat opened before: its messages and its image, the notice, and a composer that queues.
      await page.locator('article[data-role="assistant"]', { hasText: "water them in the morning" }).waitFor();
      await page.getByText("You are offline: these are the last loaded messages").waitFor();
      await vi.waitFor(async () => expect(await thumbnailShown(page)).toBe(true), { timeout: 30_000 });
      // Still Offline while the library retries in the background (B3).
      expect(await badge(page)).toBe("Offline");
      expect(await page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(false);
      await snap(page, "offline-chat", () =>
        vi.waitFor(async () => expect(await thumbnailShown(page)).toBe(true), { timeout: 30_000 }),
      );

      // A chat never opened here: says so, nothing to write into.
      await page.goto(`${stack.serverUrl}/#/s/${never}`);
      await page.getByText("This chat is not available offline").waitFor();
      expect(await page.getByText("How can I help?").count()).toBe(0);
      expect(await page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(true);
      await snap(page, "offline-never-opened");

      // Search, on this device: the kept chat's words are found, the never-opened chat's are not.
      await page.getByRole("button", { name: "Search chats" }).click();
      const search = page.getByRole("searchbox", { name: "Search chats" });
      await search.fill("seedlings");
      const results = page.getByRole("list", { name: "Search results" });
      await results.getByRole("link").first().waitFor();
      // The chat's title and its message both match: each result is the kept chat.
      const found = await results.getByRole("link").allTextContents();
      expect(found.length).toBeGreaterThan(0);
      for (const text of found) expect(text).toContain("Tomato seedlings");
      await page.getByText("these results are from this device").waitFor();
      await search.fill("allotment");
      await page.getByText("No chat kept on this device matches “allotment”.").waitFor();
      await page.keyboard.press("Escape");

      // A chat started offline waits on the device and is listed with the kept chats.
      await page.goto(`${stack.serverUrl}/#/new`);
      const box = page.getByRole("textbox", { name: "Message" });
      await box.fill("Remind me to buy canes for the tomatoes");
      await box.press("Enter");
      await page.locator(".waiting-message", { hasText: "buy canes" }).getByText("Waiting to send").waitFor();
      await page.goto(`${stack.serverUrl}/#/`);
      await page.getByRole("list", { name: "Chats started offline" }).getByText("Waiting to send").waitFor();
      await snap(page, "offline-list");
      expect(await offlineCacheKeys(page)).toEqual(
        expect.arrayContaining([
          `transcripts:${opened}`,
          `assets:${opened}/${asset_id}`,
          expect.stringMatching(/^outbox:/),
        ]),
      );
      await page.close();

      // Revoked while the app was closed: the next open learns it, wipes the device and sends nothing.
      await stack.startBridge();
      await stack.startServer();
      restarted = true;
      const device = (await stack.devices()).find((entry) => entry.name === "walkthrough phone")!;
      const revoked = await stack.server.request({ method: "DELETE", url: `/devices/${device.device_id}` });
      expect(revoked.status).toBeLessThan(300);
      const reopened = await context.newPage();
      reopened.on("pageerror", (error) => errors.push(error.message));
      await reopened.goto(`${stack.serverUrl}/#/`);
      await reopened.getByText("This device was removed from the server").waitFor();
      await vi.waitFor(async () => expect(await offlineCacheKeys(reopened)).toEqual([]), { timeout: 30_000 });
      expect(completionBodies(stack.backend)).toEqual([]);
      const listed = await stack.server.request({ method: "GET", url: "/sessions" });
      expect((listed.json.sessions as Array<{ id: string }>).map((session) => session.id).sort()).toEqual(
        [opened, never].sort(),
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
