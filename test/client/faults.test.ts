// Faults against a real server and bridge on 127.0.0.1. Each test asserts that the sequence of events the app
// heard equals the store's own sequence after the connect cursor: no loss, no duplicate, in order.
import { describe, expect, it } from "vitest";
import { connect, type ConnectOptions } from "../../client/connection/client.ts";
import type { Credentials } from "../../client/connection/credentials.ts";
import { memoryStorage } from "../../client/storage/storage.ts";
import type { FetchLike } from "../../client/transport/http.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { join } from "node:path";
import { CuttableProxy } from "./support/proxy.ts";
import { FAST_RECONNECT, until, untilLive } from "./support/stack.ts";
import { expectExactly } from "./support/heard-exactly.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

/** A fetch the test can switch off, as if the server's address became unreachable. */
function switchableFetch() {
  const state = { down: false, only: undefined as RegExp | undefined };
  const fetch: FetchLike = (input, init) => {
    if (state.down && (!state.only || state.only.test(`${init?.method ?? "GET"} ${input}`)))
      return Promise.reject(new TypeError("fetch failed"));
    return globalThis.fetch(input, init);
  };
  return { state, fetch };
}

async function started(options: Partial<ConnectOptions> = {}, viaProxy = false, serverConfig = {}) {
  const stack = await scope.start({ replayEvents: 5 }, serverConfig);
  let credentials: Credentials = await stack.pair();
  let proxy: CuttableProxy | undefined;
  if (viaProxy) {
    proxy = scope.own(await CuttableProxy.start(() => stack.bridgePort));
    credentials = { ...credentials, bridge_url: proxy.url };
  }
  const client = scope.own(connect(credentials, { ...FAST_RECONNECT, pollWaitMs: 2000, ...options }));
  const heard: AnyEvent[] = [];
  client.on("*", (event) => heard.push(event));
  await untilLive(client);
  return { stack, proxy, client, heard, start: client.cursor!, credentials };
}

async function appendMany(sessionId: string, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) await scope.stack.append(sessionId, `m${i}`);
}

describe("client faults", () => {
  it("bridge killed mid-stream and restarted: polls, then back to live (C3, C4)", async () => {
    const { client, heard, start } = await started();
    const sessionId = await scope.stack.createSession();
    await appendMany(sessionId, 0, 5);
    await scope.stack.stopBridge();
    await appendMany(sessionId, 5, 5);
    await until(() => client.status.get().state === "polling", "polling");
    await appendMany(sessionId, 10, 5);
    await scope.stack.startBridge();
    await until(() => client.status.get().state === "live", "live again");
    await appendMany(sessionId, 15, 5);
    await expectExactly(scope.stack, heard, start);
  });

  it("server restarted: the feed resumes with nothing lost or repeated (C4)", async () => {
    const { client, heard, start } = await started();
    const sessionId = await scope.stack.createSession();
    await appendMany(sessionId, 0, 3);
    // The bridge stays up and the app stays joined; the server's forwarder resumes from its persisted cursor.
    await scope.stack.stopServer();
    await scope.stack.startServer();
    await appendMany(sessionId, 3, 5);
    await until(() => client.status.get().state === "live", "live");
    await expectExactly(scope.stack, heard, start);
  });

  it("socket dropped without a close frame: rejoins with since_id and replays (C4)", async () => {
    const { client, heard, start, proxy } = await started({}, true);
    const sessionId = await scope.stack.createSession();
    await appendMany(sessionId, 0, 3);
    proxy!.cut({ refuse: true });
    await until(() => client.status.get().state === "polling", "polling");
    await appendMany(sessionId, 3, 3);
    proxy!.allow();
    await until(() => client.status.get().state === "live", "live again");
    await appendMany(sessionId, 6, 3);
    await expectExactly(scope.stack, heard, start);
  });

  it("a replay gap larger than the bridge's buffer is filled over HTTP (C4)", async () => {
    const http = switchableFetch();
    const { client, heard, start, proxy } = await started({ fetch: http.fetch }, true);
    const sessionId = await scope.stack.createSession();
    await until(() => client.cursor === scope.stack.latestId(), "caught up");
    const misses = scope.stack.bridge!.core.metrics.replayMisses;
    // Both paths down: nothing reaches the app while 12 events (more than the 5 the bridge keeps) are stored.
    http.state.down = true;
    proxy!.cut({ refuse: true });
    await until(() => client.status.get().state === "offline", "offline");
    await appendMany(sessionId, 0, 6);
    // The bridge comes back first: its join says gap (HTTP still down), so nothing is trusted yet.
    proxy!.allow();
    await until(() => scope.stack.bridge!.core.metrics.replayMisses > misses, "a gap reply");
    http.state.down = false;
    await until(() => client.status.get().state === "live", "live");
    await appendMany(sessionId, 6, 2);
    await expectExactly(scope.stack, heard, start);
  });

  it("a server whose event store was reset (new epoch) makes the client start over, never trust its old cursor (C18)", async () => {
    const { client, heard } = await started();
    const resets: number[] = [];
    client.onReset(() => resets.push(heard.length));
    const first = await scope.stack.createSession();
    await scope.stack.append(first, "before");
    await until(() => client.cursor === scope.stack.latestId(), "caught up");
    const before = heard.length;
    const oldCursor = client.cursor!;
    await scope.stack.restartWithNewEventLog();
    await until(() => resets.length === 1, "reset");
    await until(() => client.status.get().state === "live", "live again");
    const resumeAt = client.cursor!;
    // It started over at the new store's head, below where the old store's cursor was.
    expect(resumeAt < oldCursor).toBe(true);
    await scope.stack.append(first, "after");
    const expected = (await scope.stack.storeEvents(resumeAt)).map((event) => event.event_id);
    expect(expected.length).toBeGreaterThan(0);
    await until(() => heard.length >= before + expected.length, "events of the new store");
    expect(heard.slice(before).map((event) => event.event_id)).toEqual(expected);
  });

  it("an expired cursor (410) restarts from the head, reloads snapshots and tells the app (C16)", async () => {
    const http = switchableFetch();
    const { client, heard, proxy } = await started({ fetch: http.fetch }, true, {
      events: { retention_max_events: 4 },
    });
    const resets: number[] = [];
    client.onReset(() => resets.push(heard.length));
    const sessionId = await scope.stack.createSession();
    await until(() => client.cursor === scope.stack.latestId(), "caught up");
    const before = heard.length;
    http.state.down = true;
    proxy!.cut({ refuse: true });
    await until(() => client.status.get().state === "offline", "offline");
    await appendMany(sessionId, 0, 6); // 12 events: the log keeps 4, the bridge 5
    expect(scope.stack.server.runtime.ctx.events.prune()).toBeGreaterThan(0);
    scope.stack.notifyApplication({
      key: "while-away",
      severity: "info",
      title: "Arrived while away",
      display: { presentation: "banner" },
    });
    http.state.down = false;
    proxy!.allow();
    await until(() => resets.length === 1 && client.status.get().state === "live", "reset, then live");
    // Nothing from the pruned stretch was pretended; the snapshot brought the notification instead.
    expect(heard.length).toBe(before);
    await until(() => client.notifications.application.get().length === 1, "snapshot reloaded");
    const resumeAt = client.cursor!;
    await appendMany(sessionId, 6, 2);
    const expected = (await scope.stack.storeEvents(resumeAt)).map((event) => event.event_id);
    await until(() => heard.length >= before + expected.length, "new events");
    expect(heard.slice(before).map((event) => event.event_id)).toEqual(expected);
  });

  it("a device revoked while connected stops the client and says why (C9)", async () => {
    const { client, credentials } = await started();
    const reply = await scope.stack.server.request({ method: "DELETE", url: `/devices/${credentials.device_id}` });
    expect(reply.status).toBeLessThan(300);
    await until(() => client.status.get().state === "stopped", "stopped");
    expect(client.status.get()).toEqual({ state: "stopped", reason: "revoked" });
  });

  it("a mobile dismissal that fails is retried with the same revision after reconnect (C11)", async () => {
    const http = switchableFetch();
    const storage = memoryStorage();
    const { client, proxy } = await started({ fetch: http.fetch, storage, mode: "mobile" }, true);
    const created = scope.stack.notifyApplication({
      key: "k",
      severity: "info",
      title: "Hello",
      display: { presentation: "banner" },
    });
    await until(() => client.notifications.application.get().length === 1, "shown");
    http.state.down = true;
    const result = await client.notifications.dismiss(client.notifications.application.get()[0]!);
    expect(result).toMatchObject({
      status: "queued",
      entry: { notification_id: created.id, revision: created.revision },
    });
    expect(client.notifications.application.get()).toEqual([]);
    // A reconnect: the bridge link drops and HTTP fails, then both come back.
    proxy!.cut({ refuse: true });
    await until(() => client.status.get().state === "offline", "offline");
    http.state.down = false;
    proxy!.allow();
    const dismissedOnServer = async () => {
      const list = await scope.stack.server.request({
        method: "GET",
        url: "/application/notifications?include_terminal=true",
      });
      const record = (list.json as Array<{ id: string; status: string; revision: number }>).find(
        (n) => n.id === created.id,
      );
      return record?.status === "dismissed";
    };
    await until(dismissedOnServer, "dismissed on the server");
    await until(
      async () => JSON.parse((await storage.getItem(`dismissals:${client.connectionId}`)) ?? "[1]").length === 0,
      "cache entry dropped",
    );
    expect(client.notifications.application.get()).toEqual([]);
  });
});
