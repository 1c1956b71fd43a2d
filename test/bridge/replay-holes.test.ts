// A server whose pushes arrive out of order (docs/bridge.md B40): the bridge never relays an event behind newer ones,
// never vouches for a range with a hole in it, and sends live subscribers away before relaying past a hole, so an app
// holding a cursor before the hole is told `gap` on its rejoin. The server peer is the official phoenix client.
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { formatEventId } from "../../client/wire/index.ts";
import {
  device,
  fakeServer,
  joinOnce,
  phoenixSocket,
  pushOnce,
  runCleanups,
  testBridge,
  testEvent,
  until,
} from "./helpers.ts";

afterEach(runCleanups);

const phone = device("dev_phone");

async function setUp(cursor: number) {
  const bridge = await testBridge();
  const server = await fakeServer(bridge.url, { devices: [phone.grant], cursor });
  expect(server.joined).toEqual({
    status: "ok",
    response: { resume_after: formatEventId(cursor), features: ["audience"] },
  });
  const push = async (sequence: number, after?: number) => {
    const payload = { event: testEvent(sequence), ...(after === undefined ? {} : { after: formatEventId(after) }) };
    expect((await pushOnce(server.channel, "session_event", payload)).status).toBe("ok");
  };
  /** A fresh app socket's join with this since_id: the reply and what it was sent. */
  const rejoin = async (sinceId: number) => {
    const socket = phoenixSocket(bridge.url, { params: { token: phone.token } });
    const channel = socket.channel("events:server:srv1", { since_id: formatEventId(sinceId) });
    const received: string[] = [];
    channel.on(
      "session_event",
      (payload: { event: { event_id: string } }) => void received.push(payload.event.event_id),
    );
    const reply = await joinOnce(channel);
    return { reply: reply.response.replay, received, socket };
  };
  return { bridge, push, rejoin };
}

describe("out-of-order pushes from the server", () => {
  it("sends subscribers away before relaying past a hole the server declares, and answers `gap` from before it", async () => {
    const { bridge, push, rejoin } = await setUp(516);
    await push(517, 516);
    const live = await rejoin(517);
    expect(live.reply).toBe("complete");
    const closes: number[] = [];
    live.socket.onClose((event: { code: number }) => void closes.push(event.code));

    // 518..540 never reached the bridge: 541 says it follows 540.
    await push(541, 540);
    await until(() => closes.includes(BRIDGE_CLOSE.restart), "the live subscriber sent away to rejoin");
    expect(live.received).toEqual([]);
    expect(bridge.log.has("hole in the server's events; subscribers sent to rejoin")).toBe(true);
    expect((await rejoin(517)).reply).toBe("gap");
    expect((await rejoin(530)).reply).toBe("gap");
    const after = await rejoin(540);
    expect(after.reply).toBe("complete");
    await until(() => after.received.length === 1, "541 replayed");
    expect(after.received).toEqual([formatEventId(541)]);
  });

  it("drops an event that arrives behind newer ones and answers `gap` for a since_id in that hole (no `after` sent)", async () => {
    const { bridge, push, rejoin } = await setUp(516);
    // Issue 11's order: stale 541, 542 ahead of the resend from the cursor.
    await push(541);
    await push(542);
    const relayed = bridge.core.metrics.eventsRelayed;
    await push(517);
    await push(518);
    expect(bridge.core.metrics.eventsRelayed).toBe(relayed);
    expect((await rejoin(516)).reply).toBe("gap");
    expect((await rejoin(530)).reply).toBe("gap");
    expect(bridge.log.has("event arrived behind newer ones; replay before it is a gap")).toBe(true);
    const whole = await rejoin(541);
    expect(whole.reply).toBe("complete");
    await until(() => whole.received.length === 1, "542 replayed");
    expect(whole.received).toEqual([formatEventId(542)]);
  });
});
