// The demo page in headless Chromium against a real server and bridge on 127.0.0.1: it pairs with a code, goes
// live over the browser's own WebSocket, shows events as they are stored, and dismisses from the rail.
// Chromium comes from Debian's package (scripts/ensure-chromium.sh installs it).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterEach, describe, expect, it } from "vitest";
import { buildDemo } from "../../client/demo/build.ts";
import { servePage } from "./support/page-server.ts";
import { Stack } from "./support/stack.ts";

const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe("demo page in Chromium", () => {
  it("pairs, shows live events in store order, and dismisses a notification (C15)", async () => {
    const stack = await Stack.start();
    cleanups.push(() => stack.close());
    const dir = mkdtempSync(join(tmpdir(), "client-demo-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    await buildDemo(dir);
    const page = await servePage(dir, () => stack.serverUrl);
    cleanups.push(() => page.close());
    const browser: Browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
    cleanups.push(() => browser.close());
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (error) => errors.push(error.message));

    const code = await stack.pairingCode();
    const query = new URLSearchParams({ bridge: stack.bridgeUrl, code, server: `${page.url}/api/` });
    await tab.goto(`${page.url}/?${query}`);
    await tab.waitForSelector('#status[data-state="live"]');
    const start = stack.latestId();

    const sessionId = await stack.createSession();
    await stack.append(sessionId, "hello from the test");
    const expected = (await stack.storeEvents()).filter((event) => event.event_id > start).map((event) => event.event_id);
    await tab.waitForFunction((count) => document.querySelectorAll("#events li").length >= count, expected.length);
    const shown = await tab.$$eval("#events li", (items) => items.map((item) => (item as HTMLElement).dataset.eventId));
    expect(shown).toEqual(expected);

    const record = stack.notifyApplication({ key: "browser", severity: "info", title: "Build finished", display: { presentation: "banner" } });
    await tab.waitForSelector(`#rail li[data-id="${record.id}"]`);
    await tab.click(`#rail li[data-id="${record.id}"] button`);
    await tab.waitForSelector(`#rail li[data-id="${record.id}"]`, { state: "detached" });
    const list = await stack.server.request({ method: "GET", url: "/application/notifications?include_terminal=true" });
    expect((list.json as Array<{ id: string; status: string }>).find((n) => n.id === record.id)?.status).toBe("dismissed");
    expect(errors).toEqual([]);
  });
});
