// Phoenix's long-poll transport on the bridge (issue 14, docs/bridge.md "Long-poll", B61-B65): stock phoenix.js with
// `transport: LongPoll` connects, joins and receives session_event pushes; with `longPollFallbackMs` and WebSockets
// blocked it falls back, and recovers across a bridge restart; the raw answers are Phoenix's.
import { LongPoll, Socket, type Channel } from "phoenix";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  cleanups,
  device,
  fakeServer,
  joinOnce,
  pushOnce,
  runCleanups,
  testBridge,
  testEvent,
  until,
  type TestBridge,
} from "./helpers.ts";

afterEach(runCleanups);

const FAST = { reconnectAfterMs: () => 20, rejoinAfterMs: () => 20 };
type SocketOptions = NonNullable<ConstructorParameters<typeof Socket>[1]>;

function stockSocket(url: string, options: Partial<SocketOptions>): Socket {
  const socket = new Socket(url, { ...FAST, ...options } as SocketOptions);
  socket.connect();
  cleanups.push(() => socket.disconnect());
  return socket;
}

/** A WebSocket that can never connect (a proxy that blocks upgrades): it errors at once. */
class BlockedWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url.replace(/:\d+\//, ":1/"), protocols);
  }
}

function received(channel: Channel): string[] {
  const ids: string[] = [];
  channel.on("session_event", (payload: { event: { event_id: string } }) => void ids.push(payload.event.event_id));
  return ids;
}

async function get(bridge: TestBridge, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${bridge.httpUrl}/socket/longpoll?${query}`, { headers });
  return { http: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

async function post(bridge: TestBridge, token: string, lines: string[]) {
  const response = await fetch(`${bridge.httpUrl}/socket/longpoll?vsn=2.0.0&token=${encodeURIComponent(token)}`, {
    method: "POST",
    headers: { "content-type": "application/x-ndjson" },
    body: lines.join("\n"),
  });
  return { http: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Waits until a poll is held for its window on the bridge's clock, then moves the clock past it. */
async function endWindow(bridge: TestBridge, windowMs: number): Promise<void> {
  await until(() => bridge.clock.sleepingFor(windowMs) > 0, "a poll held for its window");
  bridge.clock.advance(windowMs);
}

describe("stock phoenix.js over long-poll", () => {
  it("connects with transport: LongPoll, joins with the device token as a socket param, and receives pushes (B61)", async () => {
    const bridge = await testBridge({ longPollWindowMs: 300 });
    const phone = device("dev_1");
    const server = await fakeServer(bridge.url, { devices: [phone.grant] });
    const app = stockSocket(bridge.url, { transport: LongPoll, params: { token: phone.token } });
    const channel = app.channel("events:server:srv1", {});
    const ids = received(channel);
    expect((await joinOnce(channel)).status).toBe("ok");
    await pushOnce(server.channel, "session_event", { event: testEvent(1) });
    await until(() => ids.length === 1, "the push over long-poll");
    // Past several empty windows (204), the session is still there and still delivers.
    const empty = bridge.longPoll.emptyPolls;
    for (let window = 1; window <= 2; window++) {
      await endWindow(bridge, 300);
      await until(() => bridge.longPoll.emptyPolls >= empty + window, "an empty window");
    }
    expect(bridge.longPoll.size).toBe(1);
    await pushOnce(server.channel, "session_event", { event: testEvent(2) });
    await until(() => ids.length === 2, "the second push after empty polls");
    expect(ids).toEqual([testEvent(1).event_id, testEvent(2).event_id]);
    expect(bridge.core.metrics.socketsOpen).toBe(2);
  });

  it("takes phoenix's authToken (the X-Phoenix-AuthToken header over long-poll) as the device token (B61)", async () => {
    const bridge = await testBridge({ longPollWindowMs: 300 });
    const phone = device("dev_1");
    await fakeServer(bridge.url, { devices: [phone.grant] });
    const app = stockSocket(bridge.url, { transport: LongPoll, authToken: phone.token } as Partial<SocketOptions>);
    expect((await joinOnce(app.channel("events:server:srv1", {}))).status).toBe("ok");
    const stranger = stockSocket(bridge.url, {
      transport: LongPoll,
      authToken: "not-a-device-token",
    } as Partial<SocketOptions>);
    expect(await joinOnce(stranger.channel("events:server:srv1", {}))).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
  });

  it("falls back from a blocked WebSocket with longPollFallbackMs and recovers across a bridge restart (B62)", async () => {
    const first = await testBridge({ longPollWindowMs: 300 });
    const phone = device("dev_1");
    const server = await fakeServer(first.url, { devices: [phone.grant] });
    const app = stockSocket(first.url, {
      transport: BlockedWebSocket as unknown as SocketOptions["transport"],
      longPollFallbackMs: 100,
      params: { token: phone.token },
    });
    const channel = app.channel("events:server:srv1", {});
    const ids = received(channel);
    expect((await joinOnce(channel)).status).toBe("ok");
    await pushOnce(server.channel, "session_event", { event: testEvent(1) });
    await until(() => ids.length === 1, "the push over the fallback");

    await first.close();
    const bridge = await testBridge({ longPollWindowMs: 300 }, first.dataDir, first.port);
    // The server's own socket reconnects by itself and rejoins its channel (devices survive in servers.json).
    await until(() => bridge.core.registry.connectedServers === 1, "the server rejoined", 15_000);
    await until(() => bridge.core.registry.get("srv1")!.topic.size === 1, "the app rejoined over long-poll", 15_000);
    await pushOnce(server.channel, "session_event", { event: testEvent(2) });
    await until(() => ids.length === 2, "the push after the restart", 15_000);
    expect(bridge.longPoll.size).toBe(1);
  });
});

describe("the long-poll endpoint's answers, as Phoenix gives them (B63)", () => {
  it("opens with 410 and a token, holds an empty poll for the window (204), and sends frames a POST's join produced", async () => {
    const bridge = await testBridge({ longPollWindowMs: 100 });
    const opened = await get(bridge, "vsn=2.0.0");
    expect(opened.http).toBe(200);
    expect(opened.headers.get("cache-control")).toBe("no-store");
    expect(opened.body).toMatchObject({ status: 410, messages: [] });
    const token = opened.body.token as string;
    expect(token).toMatch(/^lp\.[A-Za-z0-9_-]{43}$/);
    const held = get(bridge, `vsn=2.0.0&token=${token}`);
    await endWindow(bridge, 100);
    expect((await held).body).toEqual({ status: 204, token, messages: [] });
    expect(
      (
        await post(bridge, token, [
          JSON.stringify([null, "1", "phoenix", "heartbeat", {}]),
          JSON.stringify(["2", "2", "nope", "phx_join", {}]),
        ])
      ).body,
    ).toEqual({ status: 200 });
    const polled = await get(bridge, `vsn=2.0.0&token=${token}`);
    expect(polled.body).toMatchObject({ status: 200, token });
    expect((polled.body.messages as string[]).map((message) => JSON.parse(message))).toEqual([
      [null, "1", "phoenix", "phx_reply", { status: "ok", response: {} }],
      ["2", "2", "nope", "phx_reply", { status: "error", response: { reason: "unmatched topic" } }],
    ]);
  });

  it("answers an unknown or expired session: POST 410, GET 410 with a fresh token; an unpolled session ends after 1.5 windows", async () => {
    const bridge = await testBridge({ longPollWindowMs: 100 });
    expect((await post(bridge, "lp.unknown", ["[]"])).body).toEqual({ status: 410 });
    const token = (await get(bridge, "vsn=2.0.0")).body.token as string;
    expect(bridge.longPoll.size).toBe(1);
    bridge.clock.advance(149);
    expect(bridge.sweepIdle()).toBe(0);
    bridge.clock.advance(2);
    expect(bridge.sweepIdle()).toBe(1);
    expect(bridge.longPoll.size).toBe(0);
    expect(bridge.core.metrics.socketsOpen).toBe(0);
    const again = await get(bridge, `vsn=2.0.0&token=${token}`);
    expect(again.body).toMatchObject({ status: 410, messages: [] });
    expect(again.body.token).not.toBe(token);
  });
});

describe("hostile long-poll input (B65)", () => {
  it("ends a session whose batch is too large, too long or malformed, and keeps serving others", async () => {
    const bridge = await testBridge({ longPollWindowMs: 100, maxFrameBytes: 1000 });
    const open = async () => (await get(bridge, "vsn=2.0.0")).body.token as string;
    const heartbeat = JSON.stringify([null, "1", "phoenix", "heartbeat", {}]);

    const big = await open();
    const tooBig = await post(bridge, big, ["x".repeat(5000)]);
    expect(tooBig).toMatchObject({ http: 413, body: { status: 413, error: { code: "too_large" } } });
    const long = await open();
    expect(
      (
        await post(
          bridge,
          long,
          Array.from({ length: 101 }, () => heartbeat),
        )
      ).body,
    ).toMatchObject({ status: 413 });
    const broken = await open();
    expect((await post(bridge, broken, [heartbeat, "{not json", heartbeat])).body).toEqual({ status: 410 });
    for (const token of [big, long, broken])
      expect((await post(bridge, token, [heartbeat])).body, token).toEqual({ status: 410 });
    expect(bridge.core.metrics.badFrames).toBe(1);

    const fine = await open();
    expect((await post(bridge, fine, [heartbeat])).body).toEqual({ status: 200 });
    expect(bridge.longPoll.size).toBe(1);
    expect(bridge.core.metrics.socketsOpen).toBe(1);
  });

  it("admits sessions like sockets (a full address is refused with a retryable status 500) and ends one that stops polling past the send bound", async () => {
    const bridge = await testBridge({
      longPollWindowMs: 100,
      maxAnonymousSocketsPerAddress: 2,
      maxBufferedBytes: 2000,
    });
    const first = (await get(bridge, "vsn=2.0.0")).body.token as string;
    await get(bridge, "vsn=2.0.0");
    const refused = await get(bridge, "vsn=2.0.0");
    expect(refused).toMatchObject({ http: 429, body: { status: 500, error: { code: "rate_limited" } } });
    // Heartbeats answered into a queue nobody polls: past 2,000 bytes the session is a slow consumer and ends.
    const heartbeats = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify([null, String(i), "phoenix", "heartbeat", {}]),
    );
    expect((await post(bridge, first, heartbeats)).body).toEqual({ status: 410 });
    expect(bridge.core.metrics.slowConsumerDrops).toBe(1);
    expect(bridge.longPoll.size).toBe(1);
    expect((await get(bridge, "vsn=2.0.0")).body).toMatchObject({ status: 410 });
  });
});
