// Offline reading in Chromium at phone size (docs/app.md "Offline", invariants OF1-OF5): every chat opened on the
// device stays readable with the server stopped, the chat says "You are offline" and what is written there waits in the
// outbox, and a chat never opened says it is not available offline. Offline here is the server unreachable (the
// process stopped), not the page's offline switch.
import { describe, expect, it, vi } from "vitest";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

describe("offline history", () => {
  it("with neither the server nor the bridge answering, every chat opened before reads offline and takes messages into the outbox; a pinned one too; one never opened says so (OF1, OF3-OF6)", async () => {
    const { stack } = shared;
    const chats: string[] = [];
    for (let index = 0; index < 12; index++) {
      const id = await stack.createSession();
      await stack.append(id, `message of chat ${index}`);
      chats.push(id);
    }
    const never = await stack.createSession();
    await stack.append(never, "never opened here");
    const pinned = await stack.createSession();
    await stack.append(pinned, "pinned, never opened here");
    const pin = await stack.server.request({ method: "PATCH", url: `/sessions/${pinned}`, payload: { pinned: true } });
    expect(pin.status).toBe(200);
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    await pairThroughLink(page, (await stack.createPairing()).pair_url);
    await page.evaluate(() => navigator.serviceWorker.ready);
    for (const [index, id] of chats.entries()) {
      await page.goto(`${stack.serverUrl}/#/s/${id}`);
      await page.locator('article[data-role="user"]', { hasText: `message of chat ${index}` }).waitFor();
    }
    // Each chat's messages are written to the cache in a queue after they paint (and the pinned chat's after the list
    // loads), so the last writes may still be under way when the last chat shows: the test waits for them.
    const cachedChats = () =>
      page.evaluate(
        () =>
          new Promise<string[]>((resolve, reject) => {
            const open = indexedDB.open("chat-relay-cache");
            open.onerror = () => reject(open.error);
            open.onsuccess = () => {
              const request = open.result.transaction("transcripts").objectStore("transcripts").getAllKeys();
              request.onsuccess = () => (open.result.close(), resolve(request.result.map(String).sort()));
            };
          }),
      );
    await expect.poll(cachedChats, { timeout: 15_000 }).toEqual([...chats, pinned].sort());
    await stack.stopServer();
    await stack.stopBridge();
    try {
      await page.goto(`${stack.serverUrl}/#/`);
      await page.reload();
      for (const index of [0, 5, 11]) {
        await page.goto(`${stack.serverUrl}/#/s/${chats[index]}`);
        await page.locator('article[data-role="user"]', { hasText: `message of chat ${index}` }).waitFor();
        await page.getByText("You are offline: these are the last loaded messages").waitFor();
        // Writing goes on into the outbox (docs/app.md "Outbox"); a chat never opened here stays closed.
        expect(await page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(false);
      }
      await page.goto(`${stack.serverUrl}/#/s/${pinned}`);
      await page.locator('article[data-role="user"]', { hasText: "pinned, never opened here" }).waitFor();
      await page.goto(`${stack.serverUrl}/#/s/${never}`);
      await page.getByText("This chat is not available offline").waitFor();
      expect(await page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(true);
      expect(await page.getByText("How can I help?").count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await stack.startBridge();
      await stack.startServer();
      await context.close();
    }
  });
});
