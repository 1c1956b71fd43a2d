// Notifications and device lifecycle in the app: an application banner and its dismiss on a phone (mobile rules),
// a session notification in the desktop rail and its dismiss (desktop rules), the history of terminal records,
// and a revoked device back on the pairing screen. One stack and one browser for the file.
import { describe, expect, it, vi } from "vitest";
import { parseProducer, producerInputSchema } from "../../server/notifications/input.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import { offlineCacheKeys } from "./support/offline-db.ts";

// A browser on two shared cores: generous bounds; nothing here asserts a duration.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

async function notificationStatus(id: string, sessionId?: string): Promise<string | undefined> {
  const url = sessionId
    ? `/sessions/${sessionId}/notifications?include_terminal=true`
    : "/application/notifications?include_terminal=true";
  const list = (await shared.stack.server.request({ method: "GET", url })).json as Array<{
    id: string;
    status: string;
  }>;
  return list.find((record) => record.id === id)?.status;
}

describe("notifications and devices in the app", () => {
  it("shows an application banner with its body on a phone; dismiss hides it and the server records it (N1)", async () => {
    const { page, errors } = await openPage(shared.browser, PHONE);
    await pairThroughLink(page, (await shared.stack.createPairing()).pair_url);
    const record = shared.stack.notifyApplication({
      key: "build",
      severity: "warning",
      title: "Backup is late",
      body: "Last backup: 3 days ago",
      display: { presentation: "banner" },
    });
    const banner = page.locator(`.notification.banner[data-notification-id="${record.id}"]`);
    await banner.getByText("Last backup: 3 days ago").waitFor();
    await page.getByRole("button", { name: "Dismiss: Backup is late" }).click();
    await banner.waitFor({ state: "detached" });
    await expect.poll(() => notificationStatus(record.id)).toBe("dismissed");

    await page.goto(`${shared.stack.serverUrl}/#/history`);
    await page.locator(".history-item", { hasText: "Backup is late" }).getByText("dismissed").waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("shows a session notification in the rail beside the chat on a desktop, and dismisses it there (N2)", async () => {
    const { page, errors } = await openPage(shared.browser, DESKTOP);
    await pairThroughLink(page, (await shared.stack.createPairing()).pair_url);
    const sessionId = await shared.stack.createSession();
    await shared.stack.append(sessionId, "deploy the site");
    const service = shared.stack.server.runtime.ctx.notifications.session(sessionId);
    const record = service.publish(
      parseProducer(producerInputSchema, {
        key: "deploy",
        severity: "info",
        title: "Deploy needs approval",
        display: { presentation: "modal" },
      }),
      "test",
    );
    await page.goto(`${shared.stack.serverUrl}/#/s/${sessionId}`);
    const card = page.locator(`aside.rail .notification[data-notification-id="${record.id}"]`);
    await card.waitFor();
    // Desktop shows a modal inline in the rail (docs/client.md "Notifications"): no dialog opens.
    expect(await page.locator("dialog[open]").count()).toBe(0);
    await card.getByRole("button", { name: "Dismiss: Deploy needs approval" }).click();
    await card.waitFor({ state: "detached" });
    expect(await notificationStatus(record.id, sessionId)).toBe("dismissed");
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it("a revoked device forgets its pairing and returns to the pairing screen, which says why; a pasted link pairs again (N3, N4)", async () => {
    const { page } = await openPage(shared.browser, PHONE);
    const sessionId = await shared.stack.createSession();
    await shared.stack.append(sessionId, "a private question");
    await pairThroughLink(page, (await shared.stack.createPairing()).pair_url, "phone to revoke");
    await page.locator('.connection[data-state="live"]').waitFor();
    await page.goto(`${shared.stack.serverUrl}/#/s/${sessionId}`);
    await page.locator('article[data-role="user"]', { hasText: "a private question" }).waitFor();
    await expect.poll(() => offlineCacheKeys(page)).toContain(`transcripts:${sessionId}`);
    const device = (await shared.stack.devices()).find((entry) => entry.name === "phone to revoke")!;
    await shared.stack.server.request({ method: "DELETE", url: `/devices/${device.device_id}` });
    await page.getByText("This device was removed from the server").waitFor();
    await page.getByLabel("Pairing code").waitFor();
    expect(await page.evaluate(() => localStorage.getItem("chat-relay:credentials"))).toBeNull();
    // What the device kept of the server's chats went with it (a lost phone keeps nothing readable).
    expect(await offlineCacheKeys(page)).toEqual([]);

    // Pairing again: a pairing link pasted into the code field carries the code and the bridge (N4); the field is
    // filled with the server's bridge address, so a wrong one shows the link's own wins.
    await page.getByLabel("Bridge address").fill("ws://127.0.0.1:1/socket");
    await page.getByLabel("Pairing code").fill((await shared.stack.createPairing()).pair_url);
    await page.getByRole("button", { name: "Pair", exact: true }).click();
    await page.locator('.connection[data-state="live"]').waitFor();
    await page.context().close();
  });
});
