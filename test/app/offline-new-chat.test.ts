// A chat started offline, in Chromium (docs/app.md "Outbox" OB10, OB11). Offline is the server process stopped, not
// the page's offline switch. The first message of a new chat waits on the device; the page is reloaded (and reopened
// on the chat list) before it could go: the message still shows "Waiting to send" in its chat, can be edited, and
// is sent exactly once when the server is back, with the client_session_id and client_request_id it was written
// with (the server's own tables say so).
import { describe, expect, it, vi } from "vitest";
import type { Page } from "playwright-core";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { completionBodies } from "../runner/helpers.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import { offlineRecords } from "./support/offline-db.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });
const shared = useAppBrowser();

interface StoredWaiting {
  id: string;
  text: string;
  client_session_id?: string;
}

const storedOutbox = (page: Page) => offlineRecords<StoredWaiting>(page, "outbox");

describe("a chat started offline", () => {
  // It used to fail under load (the message not sent within 30 s of the server's restart): a bridge join made by a
  // relayed call before the client's start was dropped, and the client waited for it in "joining"
  // (test/client/join-before-start.test.ts holds the fix).
  it("shows its waiting message after a reload and on the chat list, and is created and sent once when the server is back (OB10)", async () => {
    const { stack } = shared;
    stack.backend.script(dialectStream("openai", { content: "noted offline start" }));
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    await pairThroughLink(page, (await stack.createPairing()).pair_url);
    await page.evaluate(() => navigator.serviceWorker.ready);
    const before = new Set(await sessionIds());

    await stack.stopServer();
    let restarted = false;
    try {
      await page.goto(`${stack.serverUrl}/#/new`);
      await page.reload();
      const box = page.getByRole("textbox", { name: "Message" });
      await box.fill("started on the underground");
      await box.press("Enter");
      const waiting = page.locator(".waiting-message", { hasText: "started on the underground" });
      await waiting.getByText("Waiting to send").waitFor();

      // Reloaded before it could go: still there, in its chat, editable.
      await page.reload();
      await waiting.getByText("Waiting to send").waitFor();
      await waiting.getByRole("button", { name: "Edit waiting message" }).click();
      await page.getByRole("textbox", { name: "Edit waiting message" }).fill("started on the underground, edited");
      await page.getByRole("button", { name: "Save" }).click();
      const edited = page.locator(".waiting-message", { hasText: "started on the underground, edited" });
      await edited.getByText("Waiting to send").waitFor();

      // Reopened on the chat list: the chat started offline is listed, and opens with its waiting message.
      await page.goto(`${stack.serverUrl}/#/`);
      await page.reload();
      const row = page.getByRole("link", { name: /started on the underground, edited/ });
      await row.getByText("Waiting to send").waitFor();
      await row.click();
      await edited.getByText("Waiting to send").waitFor();
      const [record, ...rest] = await storedOutbox(page);
      expect(rest).toEqual([]);
      expect(record).toMatchObject({ text: "started on the underground, edited" });
      expect(record!.client_session_id).toMatch(/\S/);

      await stack.startServer();
      restarted = true;
      // The page moves to the chat the outbox created, where the message is the chat's own.
      await page.locator('article[data-role="user"]', { hasText: "started on the underground, edited" }).waitFor();
      await vi.waitFor(() => expect(page.url()).toMatch(/#\/s\/[^/]+$/), { timeout: 30_000 });
      await vi.waitFor(() => expect(completionBodies(stack.backend)).toHaveLength(1), { timeout: 60_000 });
      await page.locator(".waiting-message").waitFor({ state: "detached" });

      const created = (await sessionIds()).filter((id) => !before.has(id));
      expect(created).toHaveLength(1);
      const chat = created[0]!;
      expect(decodeURIComponent(page.url().split("#/s/")[1]!)).toBe(chat);
      await vi.waitFor(async () => expect(await roles(chat)).toEqual(["user", "assistant"]), { timeout: 60_000 });
      const db = stack.server.runtime.ctx.db;
      expect(
        db.prepare("SELECT session_id FROM client_sessions WHERE client_session_id = ?").all(record!.client_session_id),
      ).toEqual([{ session_id: chat }]);
      expect(db.prepare("SELECT session_id FROM client_requests WHERE client_request_id = ?").all(record!.id)).toEqual([
        { session_id: chat },
      ]);

      // Once more after another reload: nothing sent twice, nothing left waiting.
      await page.reload();
      await page.locator('article[data-role="user"]', { hasText: "started on the underground, edited" }).waitFor();
      expect(await storedOutbox(page)).toEqual([]);
      expect(await roles(chat)).toEqual(["user", "assistant"]);
      expect(completionBodies(stack.backend)).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      if (!restarted) await stack.startServer();
      await context.close();
    }

    async function sessionIds(): Promise<string[]> {
      const listed = await stack.server.request({ method: "GET", url: "/sessions" });
      return (listed.json.sessions as Array<{ id: string }>).map((session) => session.id);
    }
    async function roles(id: string): Promise<string[]> {
      const read = await stack.server.request({ method: "GET", url: `/sessions/${id}/messages` });
      return (read.json.messages as Array<{ role: string }>).map((message) => message.role);
    }
  });
});
