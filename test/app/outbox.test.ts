// Writing offline in Chromium (docs/app.md "Outbox", OB6-OB8): with the server STOPPED (not the page's offline
// switch), three messages written in two chats (one started offline) wait on the device as "Waiting to send", one is
// edited and one more cancelled; the page is closed, the server restarted, the app reopened hours later (the page's
// clock moved on, not waited for): each message is sent once, in its chat's order, the second of a chat only after
// the first one's reply. Proven by the server's stored messages and the scripted backend's request log. With
// APP_SCREENSHOTS=1, screenshots of a chat with waiting messages go to docs/app/.
import { describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { completionBodies } from "../runner/helpers.ts";
import { DESKTOP, openPage, pairThroughLink, PHONE, SHOTS } from "./support/browser.ts";
import { axeSerious } from "./support/axe.ts";
import { offlineRecords } from "./support/offline-db.ts";
import { useAppBrowser } from "./support/use-app-browser.ts";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });
const shared = useAppBrowser();
/** How long the app stays closed with messages waiting (on the page's clock). */
const HOURS_CLOSED = 7;

describe("outbox", () => {
  it("messages written with the server stopped are sent once each, in order, after a restart and a reopen hours later (OB6-OB8)", async () => {
    const { stack } = shared;
    const chat = await stack.createSession();
    await stack.append(chat, "written while online");
    stack.backend.script(...["noted 1", "noted 2", "noted 3"].map((content) => dialectStream("openai", { content })));
    const { context, page, errors } = await openPage(shared.browser, PHONE);
    await pairThroughLink(page, (await stack.createPairing()).pair_url);
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.goto(`${stack.serverUrl}/#/s/${chat}`);
    await page.locator('article[data-role="user"]', { hasText: "written while online" }).waitFor();

    await stack.stopServer();
    let restarted = false;
    try {
      await page.reload();
      await page.getByText("Your server is offline: these are the last loaded messages").waitFor();
      const box = page.getByRole("textbox", { name: "Message" });
      for (const text of ["offline one", "offline two", "never mind"]) {
        await box.fill(text);
        await box.press("Enter");
        await page.locator(".waiting-message", { hasText: text }).waitFor();
      }
      const waiting = page.locator(".waiting-message");
      await waiting.filter({ hasText: "never mind" }).getByRole("button", { name: "Cancel waiting message" }).click();
      await waiting.filter({ hasText: "never mind" }).waitFor({ state: "detached" });
      await waiting.filter({ hasText: "offline two" }).getByRole("button", { name: "Edit waiting message" }).click();
      await page.getByRole("textbox", { name: "Edit waiting message" }).fill("offline two, edited");
      await page.getByRole("button", { name: "Save" }).click();
      await waiting.filter({ hasText: "offline two, edited" }).waitFor();
      expect(await waiting.getByText("Waiting to send").count()).toBe(2);
      for (const [path, size] of [
        ["outbox-waiting-phone.png", PHONE],
        ["outbox-waiting-desktop.png", DESKTOP],
      ] as const) {
        await page.setViewportSize(size);
        if (SHOTS) await page.screenshot({ path: SHOTS + path });
        // The waiting bubbles keep their text readable (they were the sent bubble dimmed, which failed axe's contrast).
        expect(await axeSerious(page)).toEqual([]);
      }
      await page.setViewportSize(PHONE);

      await page.goto(`${stack.serverUrl}/#/new`);
      // The new chat's screen, not the last chat's composer still in the page as the route changes (a CI run under
      // load typed into that one, and the text went with it).
      await page.getByRole("heading", { name: "How can I help?" }).waitFor();
      const newBox = page.getByRole("textbox", { name: "Message" });
      await newBox.fill("a new chat, offline");
      await newBox.press("Enter");
      await page.locator(".waiting-message", { hasText: "a new chat, offline" }).waitFor();
      // Kept in the offline cache's database (the one the worker deletes on revocation, OB8).
      const stored = (await offlineRecords<{ text: string }>(page, "outbox")).map((item) => item.text);
      expect(stored.sort()).toEqual(["a new chat, offline", "offline one", "offline two, edited"]);
      await page.close();

      await stack.startServer();
      restarted = true;
      // Reopened seven hours later: the page's clock is moved on (Playwright's clock, time then runs on from there),
      // no real time is waited. The messages go at this open, as written.
      const closedAt = Date.now();
      await context.clock.install({ time: closedAt + HOURS_CLOSED * 3_600_000 });
      const reopened = await context.newPage();
      reopened.on("pageerror", (error) => errors.push(error.message));
      await reopened.goto(`${stack.serverUrl}/#/s/${chat}`);
      expect(await reopened.evaluate(() => Date.now())).toBeGreaterThanOrEqual(closedAt + HOURS_CLOSED * 3_600_000);
      await reopened.locator('article[data-role="user"]', { hasText: "offline two, edited" }).waitFor();
      await reopened.locator(".waiting-message").first().waitFor({ state: "detached" });
      await vi.waitFor(() => expect(completionBodies(stack.backend)).toHaveLength(3), { timeout: 60_000 });

      const contents = async (id: string) =>
        (
          (await stack.server.request({ method: "GET", url: `/sessions/${id}/messages` })).json.messages as Array<{
            role: string;
            content: string;
          }>
        ).map((message) => `${message.role}: ${message.content}`);
      await vi.waitFor(async () => expect(await contents(chat)).toHaveLength(5), { timeout: 60_000 });
      const mine = await contents(chat);
      expect(mine.filter((line) => line.startsWith("user:"))).toEqual([
        "user: written while online",
        "user: offline one",
        "user: offline two, edited",
      ]);
      expect(mine[2]).toMatch(/^assistant: noted/);
      const listed = (await stack.server.request({ method: "GET", url: "/sessions" })).json.sessions as Array<{
        id: string;
      }>;
      const others = listed.filter((session) => session.id !== chat);
      const started: string[] = [];
      for (const other of others)
        if ((await contents(other.id))[0] === "user: a new chat, offline") started.push(other.id);
      expect(started).toHaveLength(1);
      await vi.waitFor(async () => expect(await contents(started[0]!)).toHaveLength(2), { timeout: 60_000 });

      // The backend saw each message once; the second of the chat was sent after the first's reply.
      const lastUser = (body: { messages: Array<Record<string, unknown>> }) =>
        body.messages.filter((message) => message.role === "user").at(-1)?.content;
      const bodies = completionBodies(stack.backend);
      expect(bodies.map(lastUser).sort()).toEqual(["a new chat, offline", "offline one", "offline two, edited"]);
      const second = bodies.find((body) => lastUser(body) === "offline two, edited")!;
      expect(second.messages.map((message) => message.role)).toEqual(["user", "user", "assistant", "user"]);
      expect(errors).toEqual([]);
    } finally {
      if (!restarted) await stack.startServer();
      await context.close();
    }
  });
});
