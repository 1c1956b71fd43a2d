// The library on a plain http: origin that is not localhost (docs/https.md, docs/client.md "Insecure origins",
// C168-C170), in Chromium: the page is opened as http://lan.test:<port>/ (mapped to 127.0.0.1), which is not a
// secure context, like a phone opening http://<LAN address>:8787. There is no crypto.randomUUID there, no
// navigator.clipboard: the library pairs, goes live and sends with its own ids, copies text the old way, and keeps
// its offline cache in IndexedDB, which a wipe from elsewhere is never blocked by.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type * as Lib from "../../client/index.ts";
import { InsecurePage } from "./support/browser-page.ts";
import { Stack } from "./support/stack.ts";

type Window = typeof globalThis & { lib: typeof Lib };

const BROWSER_MS = 60_000;
let browser: InsecurePage | undefined;
let stack: Stack | undefined;

beforeAll(async () => {
  browser = await InsecurePage.open();
}, BROWSER_MS);
afterAll(async () => {
  await browser?.close();
}, BROWSER_MS);
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe("an insecure origin", () => {
  it("is one: no randomUUID, no clipboard API (the premise of the tests below)", async () => {
    const facts = await browser!.page.evaluate(() => ({
      secure: globalThis.isSecureContext,
      randomUUID: typeof (crypto as { randomUUID?: unknown }).randomUUID,
      clipboard: typeof (navigator as { clipboard?: unknown }).clipboard,
      origin: location.origin,
    }));
    expect(facts).toMatchObject({ secure: false, randomUUID: "undefined", clipboard: "undefined" });
    expect(facts.origin).toMatch(/^http:\/\/lan\.test:\d+$/);
  });

  it("pairs, goes live and sends with the library's own ids (C168)", { timeout: BROWSER_MS }, async () => {
    stack = await Stack.start();
    const code = await stack.pairingCode();
    const sent = await browser!.page.evaluate(
      async ({ bridgeUrl, serverUrl, code }) => {
        const { lib } = globalThis as Window;
        const paired = await lib.pair({ bridgeUrl, code, deviceName: "phone on the LAN" });
        const client = lib.connect({ ...paired, server_url: serverUrl });
        try {
          await new Promise<void>((resolve) =>
            client.status.subscribe((status) => status.state === "live" && resolve()),
          );
          const session = await client.createSession();
          const answer = await client.send(session.id, { content: "hello from http://lan.test" });
          return { answer, badge: lib.connectionBadge(client.status.get()).label, encrypted: paired.e2e !== undefined };
        } finally {
          client.close();
        }
      },
      { bridgeUrl: stack.bridgeUrl, serverUrl: stack.serverUrl, code },
    );
    expect(sent.answer.client_request_id).toMatch(/^crid_[0-9a-f]{32}$/);
    expect(sent.answer.request_id).toEqual(expect.any(String));
    expect(sent).toMatchObject({ badge: "Live", encrypted: true });
    expect(browser!.errors).toEqual([]);
  });

  it("makes ids with getRandomValues: randomId, and randomUuid in randomUUID's own format (C168)", async () => {
    const ids = await browser!.page.evaluate(() => {
      const { lib } = globalThis as Window;
      return { id: lib.randomId("draft_"), uuids: Array.from({ length: 64 }, () => lib.randomUuid()) };
    });
    expect(ids.id).toMatch(/^draft_[0-9a-f]{32}$/);
    for (const uuid of ids.uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids.uuids).size).toBe(64);
  });

  it("copies text without the Clipboard API, from a tap (C169)", async () => {
    const page = browser!.page;
    await page.evaluate(() => {
      const { lib } = globalThis as Window;
      const state = globalThis as unknown as { copied?: boolean; selected?: string };
      document.addEventListener("copy", () => (state.selected = String(document.getSelection())));
      const button = document.createElement("button");
      button.textContent = "Copy";
      button.onclick = () =>
        void lib.copyText("http://192.168.1.5:8787/#/pair?code=7K3QF-9MXTA").then((copied) => (state.copied = copied));
      document.body.append(button);
    });
    await page.getByRole("button", { name: "Copy" }).click();
    await page.waitForFunction(() => (globalThis as { copied?: boolean }).copied !== undefined);
    const outcome = await page.evaluate(() => {
      const { copied, selected } = globalThis as unknown as { copied: boolean; selected: string };
      return { copied, selected };
    });
    expect(outcome).toEqual({ copied: true, selected: "http://192.168.1.5:8787/#/pair?code=7K3QF-9MXTA" });
    expect(await page.locator("textarea").count()).toBe(0);
  });
});

describe("the IndexedDB cache (C170)", () => {
  it("keeps chats and transcripts, and wipe() leaves nothing, even with another connection open", async () => {
    const outcome = await browser!.page.evaluate(async () => {
      const { lib } = globalThis as Window;
      const cache = await lib.IndexedDbCache.open();
      await cache.put("sessions", "list", [{ id: "s1", title: "Plans" }]);
      await cache.put("transcripts", "s1", { messages: [{ role: "user", content: "hi" }] });
      const other = await lib.IndexedDbCache.open();
      const read = {
        list: await other.get("sessions", "list"),
        transcript: await other.get("transcripts", "s1"),
        keys: await other.keys("transcripts"),
      };
      await cache.delete("transcripts", "s1");
      const afterDelete = await other.keys("transcripts");
      // The other connection closes itself, so the wipe is not blocked by it.
      await cache.wipe();
      const otherOpen = other.isOpen;
      const closedCall = await other.get("sessions", "list").then(
        () => "answered",
        (error: Error) => error.name,
      );
      const databases = (await indexedDB.databases()).map((database) => database.name);
      const fresh = await lib.IndexedDbCache.open();
      const empty = { list: await fresh.get("sessions", "list"), keys: await fresh.keys("transcripts") };
      // The service worker's way: delete by name, with a connection open here.
      await lib.wipeCache();
      const freshOpen = fresh.isOpen;
      return { read, afterDelete, otherOpen, closedCall, databases, empty, freshOpen, name: lib.CACHE_DB_NAME };
    });
    expect(outcome.read).toEqual({
      list: [{ id: "s1", title: "Plans" }],
      transcript: { messages: [{ role: "user", content: "hi" }] },
      keys: ["s1"],
    });
    expect(outcome.afterDelete).toEqual([]);
    expect(outcome).toMatchObject({
      otherOpen: false,
      closedCall: "CacheUnavailableError",
      freshOpen: false,
      empty: { list: undefined, keys: [] },
    });
    expect(outcome.databases).not.toContain(outcome.name);
  });
});
