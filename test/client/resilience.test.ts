// The client's recovery paths against the real stack (server + bridge on 127.0.0.1): a failing long-poll backs
// off, observers that throw are isolated, a cursor reset clears the loadMessages floors, a truncated push's fetch
// ends with close() or a permanent refusal, and overlapping snapshot reloads never go backwards. Pure transitions
// are proved in machine.test.ts instead.
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseProducer, producerInputSchema } from "../../server/notifications/input.ts";
import { connect, type ClientProblem, type ConnectOptions } from "../../client/connection/client.ts";
import type { FetchLike } from "../../client/transport/http.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { MAX_FRAME_BYTES } from "../../client/wire/frames.ts";
import { NotificationCenter } from "../../client/notifications/center.ts";
import { HttpApi } from "../../client/transport/http.ts";
import { memoryStorage } from "../../client/storage/storage.ts";
import { appEvent, record } from "./support/records.ts";
import { ManualTimers } from "../../client/util/timers.ts";
import { FAST_RECONNECT, until, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();
afterEach(() => {
  vi.restoreAllMocks();
});

/** A fetch that answers `status` instead of the server for the requests `matches` picks while `on` is set. */
function failingFetch(matches: (url: string) => boolean, status = 502) {
  const state = { on: true, failed: 0, matched: 0 };
  const fetch: FetchLike = (input, init) => {
    if (matches(input)) state.matched++;
    if (state.on && matches(input)) {
      state.failed++;
      return Promise.resolve(
        new Response(JSON.stringify({ error: { code: "bad_gateway", message: "injected" } }), { status }),
      );
    }
    return globalThis.fetch(input, init);
  };
  return { state, fetch };
}

/** A paired client whose bridge is down, so it reads over the HTTP long-poll. */
async function pollingClient(options: Partial<ConnectOptions>) {
  const stack = await scope.start();
  const credentials = await stack.pair();
  await stack.stopBridge();
  const problems: ClientProblem[] = [];
  const heard: AnyEvent[] = [];
  const client = scope.own(connect(credentials, { ...FAST_RECONNECT, ...options }));
  client.onProblem((problem) => problems.push(problem));
  client.on("*", (event) => heard.push(event));
  return { client, problems, heard };
}

/** A paired client, live over the bridge. */
async function liveClient(options: Partial<ConnectOptions> = {}) {
  const stack = await scope.start();
  const credentials = await stack.pair();
  const problems: ClientProblem[] = [];
  const heard: AnyEvent[] = [];
  const client = scope.own(connect(credentials, { ...FAST_RECONNECT, ...options }));
  client.onProblem((problem) => problems.push(problem));
  client.on("*", (event) => heard.push(event));
  await untilLive(client);
  return { client, problems, heard };
}

/** The server's event store starts over (new epoch, ids from 1); devices and sessions stay. */
const resetEventStore = () => scope.stack.restartWithNewEventLog();

describe("client resilience", () => {
  it("a long-poll that always fails backs off, though the catch-up between polls works", async () => {
    const http = failingFetch((url) => url.includes("wait_ms="));
    // The backoff is on injected timers: each retry waits for the test to move time, never for a real sleep.
    const timers = new ManualTimers();
    await pollingClient({ fetch: http.fetch, retryDelaysMs: [20, 50, 150, 5000], timers });
    await until(() => http.state.failed >= 1, "the first poll failed");
    for (const [delay, failed] of [
      [20, 2],
      [50, 3],
      [150, 4],
    ] as const) {
      // Just short of the delay nothing is tried again; at the delay the next poll goes out (and fails).
      await until(() => timers.pending > 0, "the retry is due on the timers");
      const due = timers.pending;
      timers.advance(delay - 1);
      expect(timers.pending, "no timer fired before the delay").toBe(due);
      expect(http.state.failed).toBe(failed - 1);
      timers.advance(1);
      await until(() => http.state.failed >= failed, `poll ${failed} after ${delay} ms`);
    }
    // Then a steady 5000 ms: 4999 ms later there is still no fifth poll (a fixed 20 ms would have made ~250).
    await until(() => timers.pending > 0, "the retry is due on the timers");
    const due = timers.pending;
    timers.advance(4999);
    expect(timers.pending, "no timer fired before 5000 ms").toBe(due);
    expect(http.state.failed).toBe(4);
    timers.advance(1);
    await until(() => http.state.failed >= 5, "poll 5 after 5000 ms");
  });

  it("a pollWaitMs above the server's 30 s maximum is clamped, not refused on every poll", async () => {
    const { client, problems, heard } = await pollingClient({ pollWaitMs: 60_000 });
    await until(() => client.status.get().state === "polling", "polling");
    const sessionId = await scope.stack.createSession();
    await scope.stack.append(sessionId, "over the poll");
    await until(() => heard.some((event) => event.type === "message_appended"), "the event");
    expect(client.status.get().state).toBe("polling");
    expect(problems.map((problem) => problem.message)).toEqual([]);
  });

  it("observers that throw (status, notification view, onProblem, listeners) never stall delivery", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const stack = await scope.start();
    const credentials = await stack.pair();
    const client = scope.own(connect(credentials, FAST_RECONNECT));
    // Registered first, so each would have stopped the ones after it.
    client.onProblem(() => {
      throw new Error("onProblem observer");
    });
    const problems: ClientProblem[] = [];
    client.onProblem((problem) => problems.push(problem));
    client.status.subscribe(() => {
      throw new Error("status observer");
    });
    client.notifications.application.subscribe(() => {
      throw new Error("rail observer");
    });
    client.on("*", () => {
      throw new Error("listener");
    });
    const heard: AnyEvent[] = [];
    client.on("*", (event) => heard.push(event));
    await untilLive(client);
    const start = client.cursor!;
    stack.notifyApplication({ key: "k", severity: "info", title: "Hello", display: { presentation: "banner" } });
    const sessionId = await stack.createSession();
    for (let i = 0; i < 3; i++) await stack.append(sessionId, `m${i}`);
    const expected = (await stack.storeEvents(start)).map((event) => event.event_id);
    // Well inside the 30 s heartbeat that a stalled receiver would wait for.
    await until(() => heard.length >= expected.length, "every event", 3000);
    expect(heard.map((event) => event.event_id)).toEqual(expected);
    expect(client.status.get().state).toBe("live");
    expect(client.notifications.application.get()).toHaveLength(1);
    const messages = new Set(problems.map((problem) => problem.message));
    expect(messages).toContain("a status subscriber threw");
    expect(messages).toContain("a notification view subscriber threw");
    expect(messages).toContain("a listener threw");
    expect(logged).toHaveBeenCalled(); // the throwing onProblem listener, which has no other channel
  });

  it("an onReset listener that throws does not skip the reset's snapshot reload and catch-up", async () => {
    const { client, heard } = await liveClient();
    let resets = 0;
    client.onReset(() => {
      resets++;
      throw new Error("onReset observer");
    });
    await resetEventStore();
    await until(() => resets === 1, "reset");
    scope.stack.notifyApplication({
      key: "after",
      severity: "info",
      title: "After the reset",
      display: { presentation: "banner" },
    });
    await until(() => client.status.get().state === "live", "live again");
    const before = heard.length;
    const sessionId = await scope.stack.createSession();
    await scope.stack.append(sessionId, "after");
    await until(
      () => heard.slice(before).some((event) => event.type === "message_appended"),
      "events of the new store",
    );
    await until(() => client.notifications.application.get().length === 1, "the notification");
  });

  it("a store reset clears the loadMessages floors: the new store's events (ids from 1 again) reach listeners", async () => {
    const { client, heard } = await liveClient();
    const sessionId = await scope.stack.createSession();
    for (let i = 0; i < 4; i++) await scope.stack.append(sessionId, `old ${i}`);
    await until(() => client.cursor === scope.stack.latestId(), "caught up");
    const session: AnyEvent[] = [];
    const loaded = await client.loadMessages(sessionId, (event) => session.push(event));
    expect(loaded.cursor_event_id).toBe(scope.stack.latestId());
    let resets = 0;
    client.onReset(() => resets++);
    await resetEventStore();
    await until(() => resets === 1 && client.status.get().state === "live", "reset, then live");
    await scope.stack.append(sessionId, "new store");
    const content = (event: AnyEvent) => (event as { content?: unknown }).content;
    await until(() => heard.some((event) => content(event) === "new store"), "the new store's event", 3000);
    expect(session.map(content)).toContain("new store");
  });

  it("the loadMessages floor hides events from listeners only, never from the notification center", async () => {
    const http = failingFetch((url) => new URL(url).pathname === "/events");
    http.state.on = false;
    const { client } = await pollingClient({ fetch: http.fetch, pollWaitMs: 50 });
    await until(() => client.status.get().state === "polling", "polling");
    const sessionId = await scope.stack.createSession();
    await until(() => client.cursor === scope.stack.latestId(), "caught up");
    // The client falls behind (its event reads fail) while a session notification is stored...
    http.state.on = true;
    await until(() => client.status.get().state === "offline", "offline");
    const input = { key: "k", severity: "info", title: "In the session", display: { presentation: "inline" } } as const;
    scope.stack.server.runtime.ctx.notifications
      .session(sessionId)
      .publish(parseProducer(producerInputSchema, input), "test");
    // ...and the app loads the session's messages, whose cursor is past that notification event.
    const loaded = await client.loadMessages(sessionId);
    expect(loaded.cursor_event_id).toBe(scope.stack.latestId());
    http.state.on = false;
    await until(() => client.cursor === scope.stack.latestId(), "caught up again");
    await until(() => client.notifications.session(sessionId).get().length === 1, "the session notification", 3000);
  });

  it("the loadMessages floor hides events from that session's listeners only: a listener of every session hears each once", async () => {
    const http = failingFetch((url) => new URL(url).pathname === "/events");
    http.state.on = false;
    const { client, heard } = await pollingClient({ fetch: http.fetch, pollWaitMs: 50 });
    await until(() => client.status.get().state === "polling", "polling");
    const sessionId = await scope.stack.createSession();
    await until(() => client.cursor === scope.stack.latestId(), "caught up");
    const scoped: AnyEvent[] = [];
    client.on("*", (event) => scoped.push(event), { session_id: sessionId });
    // The client falls behind (its event reads fail) while the session gets two messages...
    http.state.on = true;
    await until(() => client.status.get().state === "offline", "offline");
    await scope.stack.append(sessionId, "one");
    await scope.stack.append(sessionId, "two");
    // ...and the app loads the session's messages, whose cursor is past both.
    const loaded = await client.loadMessages(sessionId);
    expect(loaded.messages.map((m) => m.content)).toEqual(["one", "two"]);
    http.state.on = false;
    await until(() => client.cursor === scope.stack.latestId(), "caught up again");
    await scope.stack.append(sessionId, "three");
    await until(() => client.cursor === scope.stack.latestId(), "the third append");
    const contents = (events: AnyEvent[]) =>
      events
        .filter((event) => event.type === "message_appended")
        .map((event) => (event as { content?: unknown }).content);
    expect(contents(heard)).toEqual(["one", "two", "three"]);
    expect(contents(scoped)).toEqual(["three"]);
  });

  it("close() aborts the fetch behind a truncated push: no more requests, nothing delivered after it", async () => {
    const http = failingFetch((url) => /[?&]limit=1(&|$)/.test(url), 503);
    // The stub's fetch retries on injected timers, so the test moves time instead of sleeping through retries.
    const timers = new ManualTimers();
    const { client, heard } = await liveClient({ fetch: http.fetch, timers });
    const sessionId = await scope.stack.createSession();
    await until(() => client.cursor === scope.stack.latestId(), "caught up");
    await scope.stack.append(sessionId, "x".repeat(Math.ceil(MAX_FRAME_BYTES / 3) + 1024)); // a stub on the bridge
    await scope.stack.append(sessionId, "small"); // queued behind it
    await until(() => (timers.advance(20), http.state.failed >= 2), "the stub's fetch retrying");
    const heardAtClose = heard.length;
    client.close();
    const fetchesAtClose = http.state.matched;
    http.state.on = false; // a fetch after close would now succeed and deliver
    // Close cleared the retry: nothing is left on the timers, so no amount of time brings another fetch.
    expect(timers.pending).toBe(0);
    timers.advance(60_000);
    expect(http.state.matched).toBe(fetchesAtClose);
    expect(heard.length).toBe(heardAtClose);
  });

  it("overlapping snapshot reloads: an older one landing last never reverts a record nor drops one an event created", async () => {
    // Each GET of the application list waits until the test answers it, so the two reloads overlap.
    const answers: Array<(body: unknown[]) => void> = [];
    const api = new HttpApi({
      baseUrl: "http://fake",
      token: "t",
      fetch: () =>
        new Promise<Response>((resolve) =>
          answers.push((body) => resolve(new Response(JSON.stringify(body), { status: 200 }))),
        ),
    });
    const center = new NotificationCenter({
      http: api,
      storage: memoryStorage(),
      timers: { now: () => 1000, sleep: () => new Promise<void>(() => undefined), timer: () => () => undefined },
      connectionId: "srv/dev",
      mode: "mobile",
      report: () => undefined,
    });
    const shown = () => center.application.get().map((item) => `${item.record.id}@${item.record.revision}`);
    const older = center.reloadAll();
    const newer = center.reloadAll();
    await until(() => answers.length === 2, "both requests sent");
    // While both are in flight, events bring x to revision 2 and create y.
    center.handleEvent(appEvent("application_notification_updated", record("x", 2)));
    center.handleEvent(appEvent("application_notification_created", record("y", 1)));
    answers[1]!([record("x", 2), record("y", 1)]); // the newer snapshot lands first
    await newer;
    answers[0]!([record("x", 1)]); // the older one, read before both events, lands last
    await older;
    expect(shown()).toEqual(["x@2", "y@1"]);
  });

  it("a truncated push whose fetch is refused for good (400) is reported and skipped, not retried forever", async () => {
    const http = failingFetch((url) => /[?&]limit=1(&|$)/.test(url), 400);
    const { client, heard, problems } = await liveClient({ fetch: http.fetch });
    const sessionId = await scope.stack.createSession();
    await until(() => client.cursor === scope.stack.latestId(), "caught up");
    await scope.stack.append(sessionId, "x".repeat(Math.ceil(MAX_FRAME_BYTES / 3) + 1024));
    await scope.stack.append(sessionId, "small");
    const content = (event: AnyEvent) => (event as { content?: unknown }).content;
    await until(() => heard.some((event) => content(event) === "small"), "the event behind the stub", 3000);
    expect(http.state.matched).toBe(1);
    expect(problems.map((problem) => problem.message)).toContain(
      "the event behind a truncated bridge push cannot be fetched; skipped",
    );
    expect(client.status.get().state).toBe("live");
  });
});
