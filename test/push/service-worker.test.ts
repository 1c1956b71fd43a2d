// The service worker's push handling in Chromium (docs/push.md "The service worker", invariants P10-P12). No push
// service is reachable offline, so the payloads the server sent (as the loopback push service decrypted them) are
// handed to the worker through the DevTools protocol (ServiceWorker.deliverPushMessage); the notifications it shows
// are read back with registration.getNotifications(). A tap is a notificationclick dispatched in the worker, which
// headless Chromium allows without a user gesture only for navigating an open window (not for opening a new one).
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
};
declare const NotificationEvent: new (type: string, init: { notification: Notification }) => Event;

let browser: Browser;
let h: PushHarness;
let phone: TestDevice;
let origin: string;
let context: BrowserContext;
let page: Page;
let worker: Worker;
let cdp: CDPSession;
let registrationId: string;
/**
 * A push handed to the worker through DevTools shows nothing about one file run in five to ten, cause not found
 * (docs/testing.md "Repeating a test"): until it is, each test may run twice more, each time with a browser of its own.
 */
const PUSH_DROP_RETRIES = 2;
/** Chromium's reports of the worker's versions, printed when an expected notification does not show. */
let versions: string[] = [];

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
  // A browser of its own per test: with one browser for the file, a later context's push sometimes reached no
  // notification at all (a likely cause: the DevTools registration events of an earlier context; not proven).
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
  cdp = await context.newCDPSession(page);
  versions = [];
  cdp.on("ServiceWorker.workerVersionUpdated", ({ versions: updated }) =>
    versions.push(JSON.stringify(updated.map((v) => [v.versionId, v.status, v.runningStatus]))),
  );
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

async function deliver(payload: unknown): Promise<void> {
  await cdp.send("ServiceWorker.deliverPushMessage", {
    origin: `${origin}/`,
    registrationId,
    data: JSON.stringify(payload),
  });
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

function shown(): Promise<Shown[]> {
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

async function shownWhen(check: (list: Shown[]) => boolean): Promise<Shown[]> {
  let last: Shown[] = [];
  await until(async () => check((last = await shown())), "the expected notifications").catch((error: Error) => {
    throw new Error(`${error.message}; shown: ${JSON.stringify(last)}; worker versions: ${versions.join(" ")}`);
  });
  return last;
}

/** What the server pushed to a device (the phone unless named), as the push service decrypted it: the last push. */
async function lastPushed(device: TestDevice = phone): Promise<any> {
  return (await h.received(device)).at(-1);
}

it(
  "shows the approval the server pushed, with no actions (never Approve), and a done replaces it by tag, quietly",
  { retry: PUSH_DROP_RETRIES },
  async () => {
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
    const [approval] = await shownWhen((list) => list.length === 1);
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
    const [done] = await shownWhen((list) => list[0]?.body === "Answered");
    expect(await shown()).toHaveLength(1);
    expect(done).toMatchObject({
      title: "mcp__files__write_file",
      tag: record.id,
      silent: true,
      requireInteraction: false,
    });
  },
);

it("a tap on a reply's notification takes the open window to that chat", { retry: PUSH_DROP_RETRIES }, async () => {
  await openApp();
  await deliver({ v: 1, type: "reply", tag: "reply:s-42", title: "New reply", session_id: "s-42" });
  await shownWhen((list) => list.length === 1);
  await worker.evaluate(async () => {
    const sw = self as unknown as WorkerScope;
    const [notification] = await sw.registration.getNotifications();
    sw.dispatchEvent(new NotificationEvent("notificationclick", { notification: notification! }));
  });
  await page.waitForURL(`${origin}/#/s/s-42`);
  expect(await shown()).toEqual([]);
});

it(
  "an unreadable push still shows a notification (silent pushes cost the subscription)",
  { retry: PUSH_DROP_RETRIES },
  async () => {
    await openApp();
    await cdp.send("ServiceWorker.deliverPushMessage", { origin: `${origin}/`, registrationId, data: "not json" });
    const [fallback] = await shownWhen((list) => list.length === 1);
    expect(fallback!.title).toBe("Chat relay");
    expect(fallback!.data.url).toBe(`${origin}/#/`);
  },
);

it(
  "'revoked' deletes the app's IndexedDB databases and caches, tells the open window, and says so",
  { retry: PUSH_DROP_RETRIES },
  async () => {
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
    // A device of its own, so a retry (below) removes a device that is still there.
    const removed = await h.device();
    await h.server.request({ method: "DELETE", url: `/devices/${removed.id}` });
    const revoked = await lastPushed(removed);
    expect(revoked.type).toBe("revoked");
    await deliver(revoked);
    const [notice] = await shownWhen((list) => list.length === 1);
    expect(notice).toMatchObject({
      title: "This device was removed",
      body: "Its saved chats were deleted from this device.",
    });
    expect(await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).toEqual([]);
    expect(await page.evaluate(() => caches.keys())).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { messages: unknown[] }).messages)).toContainEqual({
      type: "chat-relay:revoked",
    });
  },
);

it(
  "a reply marked skip_if_focused is not shown while a window of the app is focused, and is shown when none is",
  { retry: PUSH_DROP_RETRIES },
  async () => {
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
    // A second push delivered after it: once its notification is there, the skipped one would have been shown too.
    await deliver({ v: 1, type: "notification", tag: "n-1", title: "Disk almost full" });
    expect((await shownWhen((list) => list.length > 0)).map((n) => n.tag)).toEqual(["n-1"]);
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
    expect((await shownWhen((list) => list.length === 2)).map((n) => n.tag).sort()).toEqual(["n-1", "reply:s-1"]);
  },
);
