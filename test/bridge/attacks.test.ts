// Attacks and misuse against a bridge with fake server peers (docs/bridge.md B8, B9, B16-B22, B29, B35): each is answered per
// protocol, logged, and everyone else keeps being served.
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { formatEventId } from "../../client/wire/index.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import {
  cleanups,
  device,
  fakeServer,
  joinOnce,
  phoenixSocket,
  pushOnce,
  runCleanups,
  testBridge,
  testEvent,
  until,
  answerPairings,
} from "./helpers.ts";
import { byRef, payloadOf, rawClient } from "./raw-client.ts";

afterEach(runCleanups);

const code = (text: string, expiresAt: number) => ({ code_hash: sha256Hex(text), expires_at: expiresAt });

describe("device authorization on events:server:<id>", () => {
  it("refuses a join without a token, with a wrong token and with another server's token (B16)", async () => {
    const bridge = await testBridge();
    const mine = device("d1");
    const theirs = device("d2");
    await fakeServer(bridge.url, { serverId: "srv1", devices: [mine.grant] });
    await fakeServer(bridge.url, { serverId: "srv2", credential: "other-".padEnd(40, "z"), devices: [theirs.grant] });
    const attempts = [
      phoenixSocket(bridge.url),
      phoenixSocket(bridge.url, { params: { token: "x".repeat(43) } }),
      phoenixSocket(bridge.url, { params: { token: theirs.token } }),
    ];
    for (const socket of attempts) {
      expect(await joinOnce(socket.channel("events:server:srv1"))).toEqual({
        status: "error",
        response: { reason: "unauthorized" },
      });
    }
    expect(bridge.log.has("events join without a device token")).toBe(true);
    expect(bridge.log.has("events join with an unknown or revoked token")).toBe(true);
    expect(bridge.log.has("events join with another server's token")).toBe(true);
    const good = phoenixSocket(bridge.url, { params: { token: mine.token } });
    expect((await joinOnce(good.channel("events:server:srv1"))).status).toBe("ok");
  });

  it("never lets an app push into a topic: events topics are read-only, server topics need the credential (B17)", async () => {
    const bridge = await testBridge();
    const mine = device("d1");
    await fakeServer(bridge.url, { devices: [mine.grant] });
    const app = phoenixSocket(bridge.url, { params: { token: mine.token } });
    const feed = app.channel("events:server:srv1");
    await joinOnce(feed);
    expect(await pushOnce(feed, "session_event", { event: testEvent(99) })).toEqual({
      status: "error",
      response: { reason: "read_only" },
    });
    expect(await joinOnce(app.channel("server:srv1", { devices: [] }))).toEqual({
      status: "error",
      response: { reason: "unauthorized" },
    });
    expect(bridge.core.metrics.eventsRelayed).toBe(0);
  });
});

describe("the server credential", () => {
  it("refuses a replay by a second connection while the first is live, and a wrong credential (B8)", async () => {
    const bridge = await testBridge();
    const first = await fakeServer(bridge.url);
    expect(first.joined.status).toBe("ok");
    const replay = await fakeServer(bridge.url);
    expect(replay.joined).toEqual({ status: "error", response: { reason: "already_connected" } });
    const impostor = await fakeServer(bridge.url, { credential: "guess-".padEnd(40, "g") });
    expect(impostor.joined).toEqual({ status: "error", response: { reason: "unauthorized" } });
    expect(bridge.log.has("server credential replayed while its channel is live")).toBe(true);
    expect(bridge.log.has("server join with a wrong credential")).toBe(true);
    // The live server is untouched.
    expect(await pushOnce(first.channel, "session_event", { event: testEvent(1) })).toEqual({
      status: "ok",
      response: {},
    });
  });

  it("keeps the credential across bridge restarts (trust on first use is durable) (B9)", async () => {
    const bridge = await testBridge();
    (await fakeServer(bridge.url)).socket.disconnect();
    await bridge.close();
    const reborn = await testBridge({}, bridge.dataDir);
    expect((await fakeServer(reborn.url, { credential: "guess-".padEnd(40, "g") })).joined.response).toEqual({
      reason: "unauthorized",
    });
    expect((await fakeServer(reborn.url)).joined.status).toBe("ok");
  });
});

describe("pairing attacks", () => {
  it("answers expired, unknown and reused codes, and forwards a good one to the server (B18)", async () => {
    const bridge = await testBridge();
    const now = bridge.clock.now();
    const server = await fakeServer(bridge.url, {
      codes: [code("AAAAABBBBB", now + 600_000), code("CCCCCDDDDD", now + 1000)],
    });
    answerPairings(server);
    bridge.clock.advance(2000);
    const pair = (text: string) =>
      joinOnce(phoenixSocket(bridge.url).channel("pairing", { code: text, device_name: "phone" }));
    expect(await pair("ccccc-ddddd")).toEqual({ status: "error", response: { reason: "expired" } });
    expect(await pair("ZZZZZ-ZZZZZ")).toEqual({ status: "error", response: { reason: "invalid_code" } });
    expect(await pair("aaaaa bbbbb")).toEqual({
      status: "ok",
      response: { server_id: "srv1", device_id: "dev_1", device_token: "t".repeat(43), server_url: "http://s" },
    });
    expect(server.pairRequests).toEqual([expect.objectContaining({ code: "AAAAABBBBB", device_name: "phone" })]);
    expect(await pair("AAAAA-BBBBB")).toEqual({ status: "error", response: { reason: "invalid_code" } });
    expect(bridge.core.metrics.pairingFailures).toBe(3);
  });

  it("closes the socket with 1011 when a deferred join fails inside the bridge, and serves everyone else", async () => {
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url, { codes: [code("AAAAABBBBB", bridge.clock.now() + 600_000)] });
    answerPairings(server);
    // A bug in the code that turns the server's answer into the join reply (here: its log line throws).
    const info = bridge.core.log.info;
    vi.spyOn(bridge.core.log, "info").mockImplementation((fields, msg) => {
      if (msg === "device paired") throw new Error("boom");
      info(fields, msg);
    });
    const app = phoenixSocket(bridge.url);
    const closes: number[] = [];
    app.onClose((event: { code: number }) => void closes.push(event.code));
    void joinOnce(app.channel("pairing", { code: "AAAAABBBBB", device_name: "phone" }));
    await until(() => closes.includes(1011), "the app's socket closed with 1011");
    app.disconnect();
    expect(bridge.log.has("join handler failed")).toBe(true);
    expect(bridge.core.registry.get("srv1")?.link?.connection.closed).toBe(false);
  });

  it("rate-limits guessing per address and overall, so brute force is hopeless (B19)", async () => {
    const bridge = await testBridge({ pairingFailuresPerAddress: 3, pairingFailuresOverall: 5 });
    const now = bridge.clock.now();
    await fakeServer(bridge.url, { codes: [code("AAAAABBBBB", now + 600_000)] });
    const client = await rawClient(bridge.url);
    const reasons: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      client.send([String(i), String(i), "pairing", "phx_join", { code: `GUESS${i}0000`, device_name: "x" }]);
      reasons.push(
        (payloadOf(await client.next(byRef(String(i)), "reply")) as { response: { reason: string } }).response.reason,
      );
    }
    expect(reasons).toEqual(["invalid_code", "invalid_code", "invalid_code", "rate_limited"]);
    // Even the right code is refused while the address is limited.
    client.send(["9", "9", "pairing", "phx_join", { code: "AAAAABBBBB", device_name: "x" }]);
    expect(payloadOf(await client.next(byRef("9"), "reply"))).toEqual({
      status: "error",
      response: { reason: "rate_limited" },
    });
    expect(bridge.log.has("pairing rate limited")).toBe(true);
    bridge.clock.advance(60_000);
    client.send(["10", "10", "pairing", "phx_join", { code: "WRONG00000", device_name: "x" }]);
    expect(payloadOf(await client.next(byRef("10"), "reply"))).toMatchObject({ response: { reason: "invalid_code" } });
  });

  it("answers server_unavailable when the code's server is not connected", async () => {
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url, { codes: [code("AAAAABBBBB", bridge.clock.now() + 600_000)] });
    server.socket.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "server gone");
    const reply = await joinOnce(
      phoenixSocket(bridge.url).channel("pairing", { code: "AAAAABBBBB", device_name: "x" }),
    );
    expect(reply).toEqual({ status: "error", response: { reason: "server_unavailable" } });
  });
});

describe("fan-out limits", () => {
  it("replays from the buffer when it covers since_id and says 'gap' when it does not (B20)", async () => {
    const bridge = await testBridge({ replayEvents: 3 });
    const mine = device("d1");
    const server = await fakeServer(bridge.url, { devices: [mine.grant] });
    for (let i = 1; i <= 5; i++) await pushOnce(server.channel, "session_event", { event: testEvent(i) });
    const app = phoenixSocket(bridge.url, { params: { token: mine.token } });
    const replayReply = (replay: string, replayed: number) =>
      ({ replay, replayed, last_event_id: formatEventId(5), epoch: "epoch-1", server_online: true }) as const;
    const covered = await joinOnce(app.channel("events:server:srv1", { since_id: formatEventId(3) }));
    expect(covered.response).toEqual(replayReply("complete", 2));
    const other = phoenixSocket(bridge.url, { params: { token: mine.token } });
    const gap = await joinOnce(other.channel("events:server:srv1", { since_id: formatEventId(1) }));
    expect(gap.response).toEqual(replayReply("gap", 0));
    expect([bridge.core.metrics.replayHits, bridge.core.metrics.replayMisses]).toEqual([1, 1]);
  });

  it("sends a replay too big for one turn over HTTP instead ('gap'), and never subscribes a closed socket (B20)", async () => {
    const bridge = await testBridge({ maxBufferedBytes: 64 * 1024 });
    const mine = device("d1");
    const server = await fakeServer(bridge.url, { devices: [mine.grant] });
    for (let i = 1; i <= 10; i++)
      await pushOnce(server.channel, "session_event", { event: testEvent(i, { pad: "p".repeat(5000) }) });
    const app = phoenixSocket(bridge.url, { params: { token: mine.token } });
    // 10 × 5 KB is past half the 64 KB bound: the app reads the gap over HTTP and is subscribed, not closed.
    const whole = await joinOnce(app.channel("events:server:srv1", { since_id: formatEventId(0) }));
    expect(whole.response).toMatchObject({ replay: "gap", replayed: 0 });
    const small = phoenixSocket(bridge.url, { params: { token: mine.token } });
    const received: string[] = [];
    const channel = small.channel("events:server:srv1", { since_id: formatEventId(8) });
    channel.on(
      "session_event",
      (payload: { event: { event_id: string } }) => void received.push(payload.event.event_id),
    );
    expect((await joinOnce(channel)).response).toMatchObject({ replay: "complete", replayed: 2 });
    await until(() => received.length === 2, "the small replay");
    expect(bridge.core.registry.get("srv1")!.topic.size).toBe(2);
    expect(bridge.core.metrics.slowConsumerDrops).toBe(0);
  });

  it("says 'gap' to an app that rejoins from another epoch, and closes live subscribers when the store is reset (B26)", async () => {
    const bridge = await testBridge();
    const phone = device("dev_1");
    const first = await fakeServer(bridge.url, { devices: [phone.grant], epoch: "epoch-1" });
    for (let n = 1; n <= 3; n++)
      expect((await pushOnce(first.channel, "session_event", { event: testEvent(n) })).status).toBe("ok");
    const live = phoenixSocket(bridge.url, { params: { token: phone.token } });
    const closes: number[] = [];
    live.onClose((event: { code: number }) => void closes.push(event.code));
    expect(
      (await joinOnce(live.channel("events:server:srv1", { since_id: formatEventId(3), epoch: "epoch-1" }))).response,
    ).toMatchObject({ replay: "complete", replayed: 0, epoch: "epoch-1" });

    // The server comes back with a new store (new epoch): its ids start over.
    first.socket.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "old server gone");
    const second = await fakeServer(bridge.url, { devices: [phone.grant], epoch: "epoch-2" });
    expect(second.joined.status).toBe("ok");
    // A subscriber of the old store would take the new ids for duplicates: it is sent away to reconnect (1012).
    await until(() => closes.includes(BRIDGE_CLOSE.restart), "live subscriber closed with 1012");
    expect((await pushOnce(second.channel, "session_event", { event: testEvent(1) })).status).toBe("ok");

    const join = (params: Record<string, unknown>) =>
      joinOnce(phoenixSocket(bridge.url, { params: { token: phone.token } }).channel("events:server:srv1", params));
    expect((await join({ since_id: formatEventId(3), epoch: "epoch-1" })).response).toEqual({
      replay: "gap",
      replayed: 0,
      last_event_id: formatEventId(1),
      epoch: "epoch-2",
      server_online: true,
    });
    expect((await join({ since_id: formatEventId(0), epoch: "epoch-2" })).response).toMatchObject({
      replay: "complete",
      replayed: 1,
    });
    // Without an epoch (an older client) the answer is what it always was.
    expect((await join({ since_id: formatEventId(0) })).response).toMatchObject({ replay: "complete", replayed: 1 });
    expect((await join({ since_id: formatEventId(0), epoch: "x".repeat(101) })).response).toEqual({
      reason: "invalid_params",
    });
  });

  it("skips an event the server re-sends, so apps never see it twice (B21)", async () => {
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url);
    await pushOnce(server.channel, "session_event", { event: testEvent(1) });
    expect(await pushOnce(server.channel, "session_event", { event: testEvent(1) })).toEqual({
      status: "ok",
      response: {},
    });
    expect([bridge.core.metrics.eventsRelayed, bridge.core.metrics.duplicateEvents]).toEqual([1, 1]);
  });

  it("closes a slow consumer with 1013 once its send buffer passes the bound, and serves the others (B22)", async () => {
    const bridge = await testBridge({ maxBufferedBytes: 64 * 1024 });
    const mine = device("d1");
    const server = await fakeServer(bridge.url, { devices: [mine.grant] });
    const slow = await rawClient(bridge.url, `vsn=2.0.0&token=${mine.token}`);
    slow.send(["1", "1", "events:server:srv1", "phx_join", {}]);
    await slow.next(byRef("1"), "slow joined");
    const fast = phoenixSocket(bridge.url, { params: { token: mine.token } });
    const fastChannel = fast.channel("events:server:srv1");
    let fastReceived = 0;
    fastChannel.on("session_event", () => void fastReceived++);
    await joinOnce(fastChannel);
    // The slow socket stops reading: its kernel buffers fill, then ws's buffer grows past the bound.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = "x".repeat(16 * 1024);
    let sent = 0;
    while (bridge.core.metrics.slowConsumerDrops === 0 && sent < 2000) {
      await pushOnce(server.channel, "session_event", { event: testEvent(++sent, { pad: big }) });
    }
    expect(bridge.core.metrics.slowConsumerDrops).toBe(1);
    await until(() => fastReceived === sent, "the fast socket got every event");
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect((await slow.closed).code).toBe(BRIDGE_CLOSE.slowConsumer);
  });
});

describe("connection floods", () => {
  /** Opens a raw WebSocket; resolves with the HTTP status of a refused upgrade, or 101 once open. */
  function upgradeStatus(
    url: string,
    query: string,
    protocols?: string[],
  ): Promise<{ status: number; ws?: WebSocket }> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`${url}/websocket?${query}`, protocols);
      cleanups.push(() => ws.terminate());
      ws.once("open", () => resolve({ status: 101, ws }));
      ws.once("unexpected-response", (_request, response) => resolve({ status: response.statusCode ?? 0 }));
      ws.on("error", () => undefined);
    });
  }

  it("caps unpaired sockets per address (429) and all sockets (503); paired devices still connect (B29)", async () => {
    const bridge = await testBridge({ maxAnonymousSocketsPerAddress: 3, maxSockets: 5 });
    const mine = device("d1");
    // The server's own socket carries no device token: it is one of the three unpaired ones.
    await fakeServer(bridge.url, { devices: [mine.grant] });
    const unpaired = [
      await upgradeStatus(bridge.url, "vsn=2.0.0"),
      await upgradeStatus(bridge.url, `vsn=2.0.0&token=${"x".repeat(43)}`),
    ];
    expect(unpaired.map((u) => u.status)).toEqual([101, 101]);
    expect((await upgradeStatus(bridge.url, "vsn=2.0.0")).status).toBe(429);
    expect(bridge.log.has("socket refused")).toBe(true);

    // A paired device is not an unpaired socket: it connects and is served.
    const app = phoenixSocket(bridge.url, { params: { token: mine.token } });
    expect((await joinOnce(app.channel("events:server:srv1"))).status).toBe("ok");
    // Closing an unpaired socket frees its place.
    unpaired[0]!.ws!.close(1000);
    await until(() => bridge.core.metrics.socketsOpen === 3, "the closed socket released");
    expect((await upgradeStatus(bridge.url, "vsn=2.0.0")).status).toBe(101);

    // Four open now; the fifth fills the bridge, the sixth is refused whoever it is.
    expect((await upgradeStatus(bridge.url, `vsn=2.0.0&token=${encodeURIComponent(mine.token)}`)).status).toBe(101);
    expect((await upgradeStatus(bridge.url, `vsn=2.0.0&token=${encodeURIComponent(mine.token)}`)).status).toBe(503);
    expect(bridge.core.metrics.socketsRefused).toBe(2);
    expect(await (await fetch(`${bridge.httpUrl}/metrics`)).text()).toContain("bridge_sockets_refused_total 2");
  });

  it("caps the sockets one device token holds (429 for the newest), whether it comes in the query or the subprotocol (B35)", async () => {
    const bridge = await testBridge({ maxSocketsPerDevice: 3 });
    const phone = device("d1");
    const other = device("d2");
    await fakeServer(bridge.url, { devices: [phone.grant, other.grant] });
    const subprotocol = [
      "phoenix",
      `base64url.bearer.phx.${Buffer.from(phone.token).toString("base64").replace(/=/g, "")}`,
    ];
    const held = [
      await upgradeStatus(bridge.url, `vsn=2.0.0&token=${phone.token}`),
      await upgradeStatus(bridge.url, `vsn=2.0.0&token=${phone.token}`),
      await upgradeStatus(bridge.url, "vsn=2.0.0", subprotocol),
    ];
    expect(held.map((socket) => socket.status)).toEqual([101, 101, 101]);
    // One token, many sockets: the fourth and every later one is refused, however the token is presented.
    const more = [];
    for (let i = 0; i < 20; i++) more.push((await upgradeStatus(bridge.url, `vsn=2.0.0&token=${phone.token}`)).status);
    more.push((await upgradeStatus(bridge.url, "vsn=2.0.0", subprotocol)).status);
    expect(more).toEqual(Array(21).fill(429));
    expect(bridge.core.metrics.socketsOpen).toBe(4);
    expect(bridge.log.records.find((record) => record.msg === "socket refused")?.fields).toMatchObject({
      status: 429,
      problem: "too many sockets for this device",
    });
    // Another device is not affected, and a closed socket frees its device's place.
    expect((await upgradeStatus(bridge.url, `vsn=2.0.0&token=${other.token}`)).status).toBe(101);
    held[0]!.ws!.close(1001);
    await until(() => bridge.core.metrics.socketsOpen === 4, "the closed socket released");
    expect((await upgradeStatus(bridge.url, `vsn=2.0.0&token=${phone.token}`)).status).toBe(101);
  });
});
