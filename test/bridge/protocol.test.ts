// The Phoenix protocol as the official client expects it (docs/bridge.md B1-B6): heartbeats, join/leave with
// ref echo, duplicate joins, unmatched topics, the channel cap, vsn 1.0.0 object frames, and bad input that
// closes only the offending socket.
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { startBridge } from "../../bridge/bridge.ts";
import { ManualClock } from "./manual-clock.ts";
import { defaultBridgeConfig } from "../../bridge/config.ts";
import { MemoryLogger } from "../support/memory-logger.ts";
import {
  cleanups,
  CREDENTIAL,
  device,
  fakeServer,
  joinOnce,
  phoenixSocket,
  runCleanups,
  tempDir,
  testBridge,
  until,
} from "./helpers.ts";
import { byRef, payloadOf, rawClient } from "./raw-client.ts";

afterEach(runCleanups);

const serverJoin = (extra: Record<string, unknown> = {}) => ({
  credential: CREDENTIAL,
  epoch: "e",
  cursor: "0".repeat(20),
  devices: [],
  codes: [],
  ...extra,
});

describe("frames", () => {
  it("answers a heartbeat with an ok reply carrying its ref (B1)", async () => {
    const bridge = await testBridge();
    const client = await rawClient(bridge.url);
    client.send([null, "7", "phoenix", "heartbeat", {}]);
    expect(await client.next(byRef("7"), "heartbeat reply")).toEqual([
      null,
      "7",
      "phoenix",
      "phx_reply",
      { status: "ok", response: {} },
    ]);
  });

  it("echoes join_ref and ref on join and leave, then closes with the join_ref (B2)", async () => {
    const bridge = await testBridge();
    const client = await rawClient(bridge.url);
    client.send(["1", "1", "server:srv1", "phx_join", serverJoin()]);
    expect(await client.next(byRef("1"), "join reply")).toEqual([
      "1",
      "1",
      "server:srv1",
      "phx_reply",
      { status: "ok", response: { resume_after: "0".repeat(20), features: ["audience"] } },
    ]);
    client.send(["1", "2", "server:srv1", "phx_leave", {}]);
    expect(await client.next(byRef("2"), "leave reply")).toEqual([
      "1",
      "2",
      "server:srv1",
      "phx_reply",
      { status: "ok", response: {} },
    ]);
    expect(await client.next((f) => Array.isArray(f) && f[3] === "phx_close", "phx_close")).toEqual([
      "1",
      "1",
      "server:srv1",
      "phx_close",
      {},
    ]);
  });

  it("ends the old channel of a duplicate join with phx_close under the old join_ref (B3)", async () => {
    const bridge = await testBridge();
    const client = await rawClient(bridge.url);
    client.send(["1", "1", "server:srv1", "phx_join", serverJoin()]);
    await client.next(byRef("1"), "first join");
    client.send(["3", "3", "server:srv1", "phx_join", serverJoin()]);
    expect(await client.next((f) => Array.isArray(f) && f[3] === "phx_close", "close of the old channel")).toEqual([
      "1",
      "1",
      "server:srv1",
      "phx_close",
      {},
    ]);
    // The old channel's link was dropped first, so the new join is not a credential replay.
    expect(await client.next(byRef("3"), "second join")).toMatchObject([
      "3",
      "3",
      "server:srv1",
      "phx_reply",
      { status: "ok" },
    ]);
  });

  it("ignores a leave under the join_ref of a channel already replaced (B3)", async () => {
    const bridge = await testBridge();
    const client = await rawClient(bridge.url);
    client.send(["1", "1", "server:srv1", "phx_join", serverJoin()]);
    await client.next(byRef("1"), "first join");
    client.send(["3", "3", "server:srv1", "phx_join", serverJoin()]);
    await client.next(byRef("3"), "second join");
    client.send(["1", "4", "server:srv1", "phx_leave", {}]);
    expect(await client.next(byRef("4"), "stale leave reply")).toMatchObject([
      "1",
      "4",
      "server:srv1",
      "phx_reply",
      { status: "ok" },
    ]);
    // The current channel (join_ref 3) still answers pushes.
    client.send(["3", "5", "server:srv1", "grants", { devices: [], codes: [] }]);
    expect(await client.next(byRef("5"), "push on the live channel")).toMatchObject([
      "3",
      "5",
      "server:srv1",
      "phx_reply",
      { status: "ok" },
    ]);
    expect(bridge.core.metrics.joinsOk).toBe(2);
  });

  it("refuses an unknown topic with 'unmatched topic' and keeps the socket (B4)", async () => {
    const bridge = await testBridge();
    const client = await rawClient(bridge.url);
    client.send(["1", "1", "rooms:lobby", "phx_join", {}]);
    expect(await client.next(byRef("1"), "reply")).toEqual([
      "1",
      "1",
      "rooms:lobby",
      "phx_reply",
      { status: "error", response: { reason: "unmatched topic" } },
    ]);
    client.send([null, "2", "phoenix", "heartbeat", {}]);
    await client.next(byRef("2"), "socket still served");
  });

  it("caps channels per socket (B5)", async () => {
    const bridge = await testBridge({ maxChannelsPerSocket: 2 });
    const client = await rawClient(bridge.url);
    for (const [ref, id] of [
      ["1", "a"],
      ["2", "b"],
      ["3", "c"],
    ] as const)
      client.send([ref, ref, `server:${id}`, "phx_join", serverJoin()]);
    await client.next(byRef("1"), "a");
    await client.next(byRef("2"), "b");
    expect(payloadOf(await client.next(byRef("3"), "c"))).toMatchObject({
      status: "error",
      response: { reason: "too_many_channels" },
    });
    expect(bridge.log.has("channel cap reached")).toBe(true);
  });

  it("speaks vsn 1.0.0 object frames when the client asks for them (B6)", async () => {
    const bridge = await testBridge();
    const client = await rawClient(bridge.url, "vsn=1.0.0");
    client.send({ topic: "phoenix", event: "heartbeat", payload: {}, ref: "5" });
    expect(await client.next((f) => (f as { ref?: string }).ref === "5", "v1 reply")).toEqual({
      join_ref: null,
      ref: "5",
      topic: "phoenix",
      event: "phx_reply",
      payload: { status: "ok", response: {} },
    });
  });

  it("accepts the 1.8 token subprotocol and answers 'phoenix'", async () => {
    const bridge = await testBridge();
    const dev = device("d1");
    await fakeServer(bridge.url, { devices: [dev.grant] });
    const base64 = Buffer.from(dev.token).toString("base64").replace(/=/g, "");
    const client = await rawClient(bridge.url, "vsn=2.0.0", ["phoenix", `base64url.bearer.phx.${base64}`]);
    expect(client.ws.protocol).toBe("phoenix");
    client.send(["1", "1", "events:server:srv1", "phx_join", {}]);
    expect(payloadOf(await client.next(byRef("1"), "join"))).toMatchObject({ status: "ok" });
  });
});

describe("bad input closes only the offender", () => {
  it.each([
    ["not JSON", "{nope"],
    ["a frame of the wrong shape", JSON.stringify(["1", "1", "pairing"])],
    ["a payload that is not an object", JSON.stringify(["1", "1", "pairing", "phx_join", "x"])],
  ])("closes a socket that sends %s with 1007 and keeps serving others", async (_name, text) => {
    const bridge = await testBridge();
    const bystander = await rawClient(bridge.url);
    const offender = await rawClient(bridge.url);
    offender.sendText(text);
    expect((await offender.closed).code).toBe(BRIDGE_CLOSE.invalidFrame);
    expect(bridge.log.has("malformed frame")).toBe(true);
    bystander.send([null, "9", "phoenix", "heartbeat", {}]);
    await bystander.next(byRef("9"), "bystander served");
  });

  it("closes a socket that sends a frame over the size limit with 1009", async () => {
    const bridge = await testBridge({ maxFrameBytes: 1024 });
    const offender = await rawClient(bridge.url);
    offender.send([null, "1", "phoenix", "heartbeat", { pad: "x".repeat(2000) }]);
    expect((await offender.closed).code).toBe(1009);
    await until(() => bridge.core.metrics.badFrames === 1, "bad frame counted");
  });

  it("refuses a push on a topic the socket has not joined", async () => {
    const bridge = await testBridge();
    const client = await rawClient(bridge.url);
    client.send(["1", "4", "server:srv1", "session_event", { event: {} }]);
    expect(payloadOf(await client.next(byRef("4"), "reply"))).toMatchObject({
      status: "error",
      response: { reason: "unmatched topic" },
    });
  });

  it("refuses an unknown event on a joined topic", async () => {
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url);
    const reply = await new Promise((resolve) => server.channel.push("shout", {}).receive("error", resolve));
    expect(reply).toEqual({ reason: "unknown_event" });
    expect(bridge.log.has("unknown event on server topic")).toBe(true);
  });

  it("rejects an unsupported vsn and paths other than /socket/websocket at the upgrade", async () => {
    const bridge = await testBridge();
    await expect(rawClient(bridge.url, "vsn=9.9.9")).rejects.toThrow(/400/);
    await expect(rawClient(bridge.url.replace("/socket", "/other"))).rejects.toThrow(/404/);
  });

  it("answers an unparsable request target with 400 and survives peers that reset while refused (B23)", async () => {
    const bridge = await testBridge();
    const upgrade = (target: string) =>
      `GET ${target} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(bridge.port, "127.0.0.1", () => socket.write(upgrade("http://[")));
      let text = "";
      socket.on("data", (chunk) => (text += chunk.toString()));
      socket.on("close", () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1.1 400 /);

    // Refused upgrades whose peers reset the connection at once (RST while the bridge writes its answer).
    await Promise.all(
      Array.from({ length: 20 }, () => {
        return new Promise<void>((resolve) => {
          const socket = connect(bridge.port, "127.0.0.1", () => {
            socket.write(upgrade("/other/websocket"));
            socket.resetAndDestroy();
          });
          socket.on("error", () => undefined);
          socket.on("close", () => resolve());
        });
      }),
    );
    const client = await rawClient(bridge.url);
    client.send([null, "1", "phoenix", "heartbeat", {}]);
    expect(payloadOf(await client.next(byRef("1"), "heartbeat reply"))).toEqual({ status: "ok", response: {} });
  });
});

describe("liveness", () => {
  it("keeps a heartbeating phoenix socket past 60 s of idle and closes a silent one (B7)", async () => {
    const bridge = await testBridge();
    const live = phoenixSocket(bridge.url, { heartbeatIntervalMs: 20 });
    const silent = await rawClient(bridge.url);
    await until(() => live.isConnected(), "phoenix socket open");
    const closes: number[] = [];
    live.onClose((event: { code: number }) => void closes.push(event.code));
    bridge.clock.advance(61_000);
    // The heartbeat sent after the clock moved refreshes the live socket; the raw one never heartbeats.
    const framesBefore = bridge.core.metrics.framesIn;
    await until(() => bridge.core.metrics.framesIn > framesBefore, "a heartbeat after the advance");
    expect(bridge.sweepIdle()).toBe(1);
    expect((await silent.closed).code).toBe(BRIDGE_CLOSE.goingAway);
    expect(live.isConnected()).toBe(true);
    expect(closes).toEqual([]);
  });

  it("sweeps on the injected clock: a silent socket is closed once the clock passes the idle timeout, with no real wait (B7)", async () => {
    const { clock, log, client } = await sweepingBridge();
    for (let round = 0; round < 3; round++) await nextRound(clock);
    expect(log.has("idle socket closed")).toBe(false);
    await nextRound(clock);
    expect((await client.closed).code).toBe(BRIDGE_CLOSE.goingAway);
    expect(log.has("idle socket closed")).toBe(true);
  });

  it("reads what peers sent during a stall of its own event loop before sweeping idle sockets (B7)", async () => {
    const { bridge, clock, log, client } = await sweepingBridge();
    // The heartbeat reaches the bridge's kernel buffer, then the bridge's loop stalls (a long burst) for longer
    // than the idle timeout and past a sweep: on the clock, one jump of 61 s. The peer was not silent, the bridge was
    // busy: the round that wakes late is skipped, and the heartbeat is read.
    client.send([null, "hb", "phoenix", "heartbeat", {}]);
    clock.advance(61_000);
    await client.next(byRef("hb"), "heartbeat reply");
    await until(() => clock.sleepingFor(SWEEP_EVERY_MS) === 1, "the sweep waiting for its next round");
    expect(log.has("idle socket closed")).toBe(false);
    expect(bridge.core.metrics.socketsOpen).toBe(1);
    // Without a stall, the rounds go on and close the socket once it has been silent past the timeout (the fourth
    // round after the heartbeat is the first more than 60 s after it).
    for (let round = 0; round < 3; round++) await nextRound(clock);
    expect(log.has("idle socket closed")).toBe(false);
    await nextRound(clock);
    expect((await client.closed).code).toBe(BRIDGE_CLOSE.goingAway);
  });
});

const SWEEP_EVERY_MS = 20_000;

/** A bridge sweeping every 20 s of its manual clock (idle timeout 60 s), and one raw socket that never heartbeats. */
async function sweepingBridge() {
  const clock = new ManualClock();
  const log = new MemoryLogger();
  const bridge = await startBridge({
    config: defaultBridgeConfig({ port: 0, dataDir: tempDir() }),
    clock,
    log,
    sweepEveryMs: SWEEP_EVERY_MS,
  });
  cleanups.push(() => bridge.close());
  const client = await rawClient(bridge.url);
  await until(() => bridge.core.metrics.socketsOpen === 1, "socket accepted");
  await until(() => clock.sleepingFor(SWEEP_EVERY_MS) === 1, "the sweep waiting for its first round");
  return { bridge, clock, log, client };
}

/** Moves the clock one sweep period and lets that round's sweep run. */
async function nextRound(clock: ManualClock): Promise<void> {
  clock.advance(SWEEP_EVERY_MS);
  await until(() => clock.sleepingFor(SWEEP_EVERY_MS) === 1, "the sweep waiting for its next round");
  await new Promise((resolve) => setImmediate(resolve));
}
