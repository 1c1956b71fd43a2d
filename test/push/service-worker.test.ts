// The service worker's push handling in Chromium (docs/push.md "The service worker", invariants P10-P12). No push
// service is reachable offline, so the payloads the server sent (as the loopback push service decrypted them) are
// handed to the worker through the DevTools protocol (ServiceWorker.deliverPushMessage); the notifications it shows
// are read back with registration.getNotifications() once the worker has handled the pushes (`shown`). A tap is a
// notificationclick dispatched in the worker, which headless Chromium allows without a user gesture only for
// navigating an open window (not for opening a new one).
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, CDPSession, Page, Worker } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { launchBrowser, PHONE } from "../app/support/browser.ts";
import { until } from "../client/support/stack.ts";
import { PushHarness, type TestDevice } from "./support/harness.ts";

/** What the tests use of the worker's global scope (the root tsconfig has no WebWorker lib). */
type WorkerScope = {
  registration: { getNotifications(): Promise<Notification[]> };
  clients: { matchAll(options: object): Promise<Array<{ focused: boolean; visibilityState: string }>> };
  dispatchEvent(event: Event): boolean;
  /** The test's hook (`watchPushes`): resolves once `count` push events were dispatched and their work settled. */
  pushesHandled(count: number): Promise<void>;
};
declare const NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
declare const ExtendableEvent: { prototype: Event & { waitUntil(work: Promise<unknown>): void } };

let browser: Browser;
let h: PushHarness;
let phone: TestDevice;
let origin: string;
let context: BrowserContext;
let page: Page;
let worker: Worker;
let cdp: CDPSession;
let registrationId: string;
/** The pushes delivered to this test's worker so far. */
let delivered = 0;

beforeAll(async () => {
  h = await PushHarness.start();
  phone = await h.device();
  await h.server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(h.server.runtime.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h?.close();
});

/** A fresh context with the app open, its worker active and controlling the page, notifications allowed. */
async function openApp(): Promise<void> {
  // A browser of its own per test: no notification or DevTools session of one test outlives it.
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: PHONE });
  await context.grantPermissions(["notifications"], { origin });
  page = await context.newPage();
  const registered = context.waitForEvent("serviceworker");
  await page.goto(`${origin}/`);
  worker = await registered;
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller)
      await new Promise((resolve) =>
        navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }),
      );
    // `ready` and the controller both come while the worker is still "activating" (its activate handler claims the
    // page, then finishes); a push is for an activated worker.
    const active = navigator.serviceWorker.controller!;
    if (active.state !== "activated")
      await new Promise<void>((resolve) =>
        active.addEventListener("statechange", () => active.state === "activated" && resolve()),
      );
  });
  await watchPushes();
  cdp = await context.newCDPSession(page);
  const registrations = new Promise<string>((resolve) =>
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
      const found = registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted);
      if (found) resolve(found.registrationId);
    }),
  );
  await cdp.send("ServiceWorker.enable");
  registrationId = await registrations;
}

afterEach(async () => {
  await context?.close();
  await browser?.close();
});

/**
 * Counts the worker's push events and keeps the promise each hands to waitUntil (the app's handler hands it the whole
 * of its work, showNotification included), so a test can wait for the pushes to be handled: an event, not a poll.
 * Installed in the running worker; DevTools is attached to it, so Chromium does not stop it while the test runs.
 */
async function watchPushes(): Promise<void> {
  delivered = 0;
  await worker.evaluate(() => {
    const works: Array<Promise<unknown>> = [];
    const wakers: Array<() => void> = [];
    const waitUntil = ExtendableEvent.prototype.waitUntil;
    ExtendableEvent.prototype.waitUntil = function (this: Event, work: Promise<unknown>) {
      if (this.type === "push") {
        works.push(work.catch(() => undefined));
        for (const wake of wakers.splice(0)) wake();
      }
      return waitUntil.call(this, work);
    };
    (self as unknown as WorkerScope).pushesHandled = async (count) => {
      while (works.length < count) await new Promise<void>((resolve) => wakers.push(resolve));
      await Promise.all(works.slice(0, count));
    };
  });
}

/** Hands the worker a push whose data is `data`, as the push service would once it decrypted it. */
async function deliverData(data: string): Promise<void> {
  delivered++;
  await cdp.send("ServiceWorker.deliverPushMessage", { origin: `${origin}/`, registrationId, data });
}

function deliver(payload: unknown): Promise<void> {
  return deliverData(JSON.stringify(payload));
}

type Shown = {
  title: string;
  body: string;
  tag: string;
  silent: boolean | null;
  requireInteraction: boolean;
  actions: unknown[];
  data: { url: string };
};

/**
 * The notifications on display, read once every push delivered so far was handled. Never earlier: Chromium's
 * getNotifications() deletes from its notification database each notification written before the read began that
 * the platform does not list as displayed, and a notification is written before it is displayed, so a read landing
 * between the two loses it for good (docs/testing.md "Repeating a test"). showNotification resolves only once the
 * display was done, and the handler's work settles after it.
 */
async function shown(): Promise<Shown[]> {
  await handled();
  return worker.evaluate(async () =>
    (await (self as unknown as WorkerScope).registration.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      silent: n.silent,
      requireInteraction: n.requireInteraction,
      actions: (n as Notification & { actions?: unknown[] }).actions ?? [],
      data: n.data,
    })),
  );
}

/** Resolves once the worker has handled every push delivered so far. */
function handled(): Promise<void> {
  const count = delivered;
  return worker.evaluate((count) => (self as unknown as WorkerScope).pushesHandled(count), count);
}

/** What the server pushed to a device (the phone unless named), as the push service decrypted it: the last push. */
async function lastPushed(device: TestDevice = phone): Promise<any> {
  return (await h.received(device)).at(-1);
}

it("shows the approval the server pushed, with no actions (never Approve), and a done replaces it by tag, quietly", async () => {
  await openApp();
  const sid = await h.newSession();
  const record = h.api.session(sid).create({
    key: "approval:r:0",
    kind: "interaction",
    severity: "warning",
    title: "mcp__files__write_file",
    body: "{}",
  });
  await deliver(await lastPushed());
  const [approval, ...more] = await shown();
  expect(more).toEqual([]);
  expect(approval).toMatchObject({
    title: "mcp__files__write_file",
    tag: record.id,
    requireInteraction: true,
    actions: [],
    silent: false,
  });
  expect(approval!.body).toBe("");
  expect(approval!.data.url).toBe(`${origin}/#/s/${encodeURIComponent(sid)}`);

  h.api.session(sid).respond({ key: "approval:r:0" });
  await deliver(await lastPushed());
  const [done, ...others] = await shown();
  expect(others).toEqual([]);
  expect(done!.body).toBe("Answered");
  expect(done).toMatchObject({
    title: "mcp__files__write_file",
    tag: record.id,
    silent: true,
    requireInteraction: false,
  });
});

it("a tap on a reply's notification takes the open window to that chat", async () => {
  await openApp();
  await deliver({ v: 1, type: "reply", tag: "reply:s-42", title: "New reply", session_id: "s-42" });
  expect(await shown()).toHaveLength(1);
  await worker.evaluate(async () => {
    const sw = self as unknown as WorkerScope;
    const [notification] = await sw.registration.getNotifications();
    sw.dispatchEvent(new NotificationEvent("notificationclick", { notification: notification! }));
  });
  await page.waitForURL(`${origin}/#/s/s-42`);
  expect(await shown()).toEqual([]);
});

it("an unreadable push still shows a notification (silent pushes cost the subscription)", async () => {
  await openApp();
  await deliverData("not json");
  const [fallback, ...more] = await shown();
  expect(more).toEqual([]);
  expect(fallback!.title).toBe("Chat relay");
  expect(fallback!.data.url).toBe(`${origin}/#/`);
});

it("'revoked' deletes the app's IndexedDB databases and caches, tells the open window, and says so", async () => {
  await openApp();
  await page.evaluate(async () => {
    // As an app should: its connection closes when something else deletes the database.
    await new Promise((resolve) => {
      const opening = indexedDB.open("chat-relay-chats");
      opening.onsuccess = () => {
        opening.result.onversionchange = () => opening.result.close();
        resolve(undefined);
      };
    });
    await (await caches.open("chat-relay-data")).put("/x", new Response("cached chat"));
    (window as unknown as { messages: unknown[] }).messages = [];
    navigator.serviceWorker.addEventListener("message", (event) =>
      (window as unknown as { messages: unknown[] }).messages.push(event.data),
    );
  });
  // The app's own offline database may be there too (docs/app.md "Offline"): every one of them must go.
  expect(await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toContain(
    "chat-relay-chats",
  );
  // A device of its own: the phone stays subscribed for the other tests.
  const removed = await h.device();
  await h.server.request({ method: "DELETE", url: `/devices/${removed.id}` });
  const revoked = await lastPushed(removed);
  expect(revoked.type).toBe("revoked");
  await deliver(revoked);
  const [notice, ...more] = await shown();
  expect(more).toEqual([]);
  expect(notice).toMatchObject({
    title: "This device was removed",
    body: "Its saved chats were deleted from this device.",
  });
  expect(await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toEqual([]);
  expect(await page.evaluate(() => caches.keys())).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { messages: unknown[] }).messages)).toContainEqual({
    type: "chat-relay:revoked",
  });
});

it("a reply marked skip_if_focused is not shown while a window of the app is focused, and is shown when none is", async () => {
  await openApp();
  await page.bringToFront();
  const focused = await worker.evaluate(async () =>
    (await (self as unknown as WorkerScope).clients.matchAll({ type: "window" })).map((c) => [
      c.focused,
      c.visibilityState,
    ]),
  );
  expect(focused).toEqual([[true, "visible"]]);
  const skippableReply = {
    v: 1,
    type: "reply",
    tag: "reply:s-1",
    title: "New reply",
    session_id: "s-1",
    skip_if_focused: true,
  };
  await deliver(skippableReply);
  await deliver({ v: 1, type: "notification", tag: "n-1", title: "Disk almost full" });
  // Read once the worker handled both pushes: the skipped one had its chance to show.
  expect((await shown()).map((n) => n.tag)).toEqual(["n-1"]);
  await page.goto("about:blank");
  // The worker's list of windows lags the navigation: a push handled before it drops the app's page still sees a
  // focused window and skips (2 of 10 runs). Wait until the worker sees none, as a closed app's would.
  await until(
    async () =>
      (
        await worker.evaluate(async () =>
          (
            await (self as unknown as WorkerScope).clients.matchAll({ type: "window", includeUncontrolled: true })
          ).filter((c) => c.focused && c.visibilityState === "visible"),
        )
      ).length === 0,
    "no focused window of the app in the worker's view",
  );
  await deliver(skippableReply);
  expect((await shown()).map((n) => n.tag).sort()).toEqual(["n-1", "reply:s-1"]);
});
