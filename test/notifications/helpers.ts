// Shared set-up of the notification suites: a real runtime (SQLite file in a temp dir), a settable clock,
// the plugin API of a test plugin, and readers of the event log.
import { afterEach, beforeEach } from "vitest";
import type { Clock } from "../../server/clock.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { createNotificationApi, type NotificationApi } from "../../server/notifications/api.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import type { RuntimeOptions } from "../../server/runtime.ts";

export class TestClock implements Clock {
  constructor(public time = Date.parse("2030-01-01T00:00:00.000Z")) {}
  now(): number {
    return this.time;
  }
  async sleep(): Promise<void> {}
  advance(ms: number): void {
    this.time += ms;
  }
}

export interface NotificationHarness {
  server: TestServer;
  clock: TestClock;
  api: NotificationApi;
  /** Every stored event whose type mentions notification, in order. */
  notificationEvents(): Promise<Array<Record<string, any>>>;
  newSession(): Promise<string>;
}

export async function startHarness(
  config: ConfigInput = {},
  options: Partial<RuntimeOptions> & { dataDir?: string } = {},
): Promise<NotificationHarness> {
  const clock = new TestClock();
  const server = await startTestServer(config, { clock, ...options });
  const api = createNotificationApi(server.runtime.ctx.notifications, "test-plugin");
  return {
    server,
    clock,
    api,
    async notificationEvents() {
      const res = await server.request({ method: "GET", url: "/events?since_id=0&limit=10000" });
      return (res.json.events as Array<Record<string, any>>).filter((e) => String(e.type).includes("notification"));
    },
    async newSession() {
      const res = await server.request({ method: "POST", url: "/sessions", payload: {} });
      if (res.status !== 201) throw new Error(`session create failed: ${res.text}`);
      return res.json.session.id as string;
    },
  };
}

/** A fresh harness for each test of the file, closed after it. Call it at the top of the file; read what it returns
 *  like a harness (`h.api`, `h.server`) inside a test: each property is the running test's harness's. */
export function useHarness(): NotificationHarness {
  let current: NotificationHarness | undefined;
  beforeEach(async () => {
    current = await startHarness();
  });
  afterEach(() => current?.server.close());
  return new Proxy({} as NotificationHarness, {
    get(_, property: keyof NotificationHarness) {
      if (!current) throw new Error("useHarness: read the harness inside a test");
      return current[property];
    },
  });
}

export const basic = { severity: "info", title: "Build running" } as const;
export const OP_A = "build:6f1c2a3e-1b2c-4d5e-8f90-0123456789ab";
export const OP_B = "build:7a2d3b4f-2c3d-4e5f-9a01-123456789abc";
