// The "Notifications on this device" switch (docs/push.md "The app", invariant P13) against the real server's /push
// routes (in-process). The browser's push machinery is the part stood in for: happy-dom has none, and a real
// PushManager.subscribe needs the browser vendor's push service; the subscription handed over is a real one of the
// loopback push service.
import { Window } from "happy-dom";
import { cleanup, fireEvent, render, waitFor, type RenderResult } from "@testing-library/preact";
import { h as jsx } from "preact";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { z } from "zod";
import { ResponseError, ServerApi, type RequestOptions } from "../../client/index.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { PushHarness, type TestDevice } from "./support/harness.ts";

// The DOM of happy-dom for the component, registered by hand (not as the file's environment): the server runs in
// this file too and needs Node's own globals (URL, fetch).
const dom = new Window({ url: "https://phone.test/" });
for (const name of [
  "window",
  "document",
  "navigator",
  "HTMLElement",
  "HTMLInputElement",
  "HTMLButtonElement",
  "Node",
  "Event",
  "MouseEvent",
  "InputEvent",
  "MutationObserver",
  "getComputedStyle",
]) {
  Object.defineProperty(globalThis, name, {
    configurable: true,
    writable: true,
    value: name === "window" ? dom : (dom as unknown as Record<string, unknown>)[name],
  });
}

let harness: PushHarness | undefined;
let plain: TestServer | undefined;
afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  await harness?.close();
  await plain?.close();
  harness = plain = undefined;
});

/** The app's client for a device token: the library's ServerApi over the real routes, through Fastify's inject. */
function clientOf(server: TestServer, token: string): ServerApi {
  return new (class extends ServerApi {
    async request<S extends z.ZodType>(method: string, path: string, schema: S, options?: RequestOptions) {
      const res = await server.request({
        method: method as "GET",
        url: path,
        token,
        ...(options?.body !== undefined ? { payload: options.body as object } : {}),
      });
      if (res.status >= 400) throw new ResponseError(res.status, res.json?.error?.code, res.json, res.text);
      return schema.parse(res.json) as z.infer<S>;
    }
  })();
}

interface FakeBrowser {
  permission: NotificationPermission;
  asked: number;
  subscription: { endpoint: string; toJSON(): unknown; unsubscribe(): Promise<boolean> } | null;
}

/** A secure context with the Push API, whose permission prompt answers `answer`. */
function stubPushBrowser(answer: NotificationPermission, subscribeWith?: () => object): FakeBrowser {
  const fake: FakeBrowser = { permission: "default", asked: 0, subscription: null };
  vi.stubGlobal("isSecureContext", true);
  vi.stubGlobal("PushManager", class {});
  vi.stubGlobal("Notification", {
    get permission() {
      return fake.permission;
    },
    requestPermission: async () => {
      fake.asked++;
      return (fake.permission = answer);
    },
  });
  const pushManager = {
    getSubscription: async () => fake.subscription,
    subscribe: async () => {
      const json = subscribeWith!() as { endpoint: string };
      fake.subscription = {
        endpoint: json.endpoint,
        toJSON: () => json,
        unsubscribe: async () => ((fake.subscription = null), true),
      };
      return fake.subscription;
    },
  };
  Object.defineProperty(navigator, "serviceWorker", {
    configurable: true,
    value: { ready: Promise.resolve({ pushManager }) },
  });
  return fake;
}

// Loaded by a path TypeScript does not follow: the root tsconfig type-checks no JSX (the app's own tsconfig does).
const TOGGLE_MODULE = "../../app/src/components/notifications-toggle.tsx";
const { NotificationsToggle } = (await import(TOGGLE_MODULE)) as {
  NotificationsToggle: (props: { client: Pick<ServerApi, "request"> }) => null;
};

// Queries bound to the render (testing-library's `screen` binds to the document that existed when it was imported).
let view: RenderResult;
const show = (client: Pick<ServerApi, "request">) => (view = render(jsx(NotificationsToggle, { client })));
const toggle = () => view.getByRole("switch", { name: "Notifications on this device" });

beforeEach(() => {
  // happy-dom defines serviceWorker on navigator only when a test stubs it.
  Object.defineProperty(navigator, "serviceWorker", { configurable: true, value: undefined });
  delete (navigator as { serviceWorker?: unknown }).serviceWorker;
  delete (navigator as { userAgent?: unknown }).userAgent;
});

it("on a plain http: LAN page it says the address is not secure and stays off", async () => {
  vi.stubGlobal("isSecureContext", false);
  show({ request: vi.fn() } as never);
  await view.findByText(/opened over plain http:/);
  expect(toggle().getAttribute("aria-checked")).toBe("false");
  expect((toggle() as HTMLButtonElement).disabled).toBe(true);
});

it("on an iPhone without the Push API it says to add the app to the Home Screen", async () => {
  vi.stubGlobal("isSecureContext", true);
  Object.defineProperty(navigator, "userAgent", {
    configurable: true,
    value: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15",
  });
  show({ request: vi.fn() } as never);
  await view.findByText(/add the app to the Home Screen|Add to Home Screen/);
  expect((toggle() as HTMLButtonElement).disabled).toBe(true);
});

it("after the permission was refused it says notifications are blocked", async () => {
  const fake = stubPushBrowser("denied");
  fake.permission = "denied";
  show({ request: vi.fn() } as never);
  await view.findByText(/blocked for this site/);
  expect(fake.asked).toBe(0);
});

it("on a server without push it says the server does not send notifications", async () => {
  stubPushBrowser("granted");
  plain = await startTestServer({});
  const pairing = plain.runtime.ctx.pairing;
  const device = pairing.redeem(pairing.createCode().code, "phone");
  show(clientOf(plain, device.ok ? device.device_token : ""));
  await view.findByText(/does not send notifications/);
});

it("asks the permission only when tapped, subscribes, stores the subscription, sets previews, and turns off again", async () => {
  harness = await PushHarness.start();
  const device: TestDevice = await harness.device();
  await harness.server.request({
    method: "DELETE",
    url: "/push/subscriptions",
    token: device.token,
    payload: { endpoint: device.subscription.endpoint },
  });
  const { clientHash: _hash, ...subscription } = device.subscription;
  const fake = stubPushBrowser("granted", () => subscription);
  const store = harness.push.subscriptions;
  show(clientOf(harness.server, device.token));
  await waitFor(() => expect((toggle() as HTMLButtonElement).disabled).toBe(false));
  expect(fake.asked).toBe(0);

  fireEvent.click(toggle());
  await waitFor(() => expect(toggle().getAttribute("aria-checked")).toBe("true"));
  expect(fake.asked).toBe(1);
  expect(store.ofDevice(device.id).map((s) => s.endpoint)).toEqual([subscription.endpoint]);

  fireEvent.click(view.getByRole("checkbox", { name: "Show message text in notifications" }));
  await waitFor(() => expect(store.preview(device.id)).toBe(true));

  fireEvent.click(toggle());
  await waitFor(() => expect(toggle().getAttribute("aria-checked")).toBe("false"));
  expect(store.ofDevice(device.id)).toEqual([]);
  expect(fake.subscription).toBeNull();
});
