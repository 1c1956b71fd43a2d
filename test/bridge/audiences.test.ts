// Audiences on the bridge (docs/bridge.md "Audiences", B150-B156): a server that declares `audience` tags its grants
// and events; a device gets only the events whose audience holds its tag, live and by replay, over WebSocket (both
// and long-poll, with the stock phoenix client; an event for someone else is skipped without a
// gap or a close, a missing form for a device in the audience is a gap, and anything untagged reaches nobody.
import { LongPoll, Socket, type Channel } from "phoenix";
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { formatEventId } from "../../client/wire/index.ts";
import {
  CREDENTIAL,
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
  type TestBridge,
} from "./helpers.ts";

afterEach(runCleanups);

const A = "tag-person-a";
const B = "tag-person-b";
const FEATURES = ["audience"];

/** A sealed form as the server would send it (the bridge never opens it: any well-formed envelope will do). */
function sealed(sequence: number, keyId: number) {
  return {
    event_id: formatEventId(sequence),
    key_id: keyId,
    nonce: "n".repeat(32),
    ciphertext: `c${sequence}x${keyId}`,
  };
}

/** An event of one person's chat: the plain form and the person's sealed form, for that person's tag only. */
function chatEvent(sequence: number, tag: string, options: { plain?: boolean; sealed?: boolean } = {}) {
  const forms: object[] = [];
  if (options.plain !== false) forms.push({ to: [tag], event: testEvent(sequence) });
  if (options.sealed !== false) forms.push({ to: [tag], sealed: sealed(sequence, tag === A ? 1 : 2) });
  return { event_id: formatEventId(sequence), audience: [tag], forms };
}

/** An event for everyone: one sealed form under the server-wide key, and the plain one, to every tag. */
function everyoneEvent(sequence: number) {
  const to = [A, B];
  return {
    event_id: formatEventId(sequence),
    audience: to,
    forms: [
      { to, event: testEvent(sequence, { type: "application_notification_created" }) },
      { to, sealed: sealed(sequence, 9) },
    ],
  };
}

/** Every frame a socket receives on its events topic, as [event, id] pairs, and its close codes. */
function tap(socket: Socket, channel: Channel) {
  const frames: Array<[string, string]> = [];
  const closes: number[] = [];
  socket.onMessage((raw: object) => {
    const message = raw as { event: string; payload: Record<string, unknown>; topic: string };
    if (message.topic !== channel.topic) return;
    if (message.event === "session_event")
      frames.push(["plain", (message.payload.event as { event_id: string }).event_id]);
    if (message.event === "sealed_event") frames.push(["sealed", message.payload.event_id as string]);
  });
  socket.onClose((event: { code: number }) => void closes.push(event.code));
  return { frames, closes, ids: () => frames.map(([, id]) => id) };
}

const people = {
  aPlain: device("a-phone"),
  aSealed: device("a-laptop"),
  bPlain: device("b-phone"),
  bSealed: device("b-laptop"),
  untagged: device("nobody"),
};

function grants(overrides: Partial<Record<keyof typeof people, object>> = {}) {
  return [
    { ...people.aPlain.grant, audience: A },
    { ...people.aSealed.grant, mode: "e2e", audience: A },
    { ...people.bPlain.grant, audience: B },
    { ...people.bSealed.grant, mode: "e2e", audience: B },
    people.untagged.grant,
  ].map((grant) => ({ ...grant, ...(overrides[grantKey(grant.device_id)] ?? {}) }));
}

function grantKey(deviceId: string): keyof typeof people {
  return (Object.keys(people) as Array<keyof typeof people>).find((key) => people[key].deviceId === deviceId)!;
}

async function device$(bridge: TestBridge, who: keyof typeof people, options: { sinceId?: number } = {}) {
  const socket = phoenixSocket(bridge.url, { params: { token: people[who].token } });
  const channel = socket.channel(
    "events:server:srv1",
    options.sinceId === undefined ? {} : { since_id: formatEventId(options.sinceId) },
  );
  const tapped = tap(socket, channel);
  const joined = await joinOnce(channel);
  return { socket, channel, joined, ...tapped };
}

/** A server peer that speaks audiences (fakeServer's join, with the feature and tagged grants). */
async function server(bridge: TestBridge) {
  const socket = phoenixSocket(bridge.url);
  const channel = socket.channel("server:srv1", {
    credential: CREDENTIAL,
    epoch: "epoch-1",
    cursor: formatEventId(0),
    devices: grants(),
    codes: [],
    features: FEATURES,
  });
  const joined = await joinOnce(channel);
  return { socket, channel, joined };
}

async function publish(channel: Channel, ...payloads: object[]): Promise<void> {
  for (const payload of payloads) expect((await pushOnce(channel, "session_event", payload)).status).toBe("ok");
}

describe("audiences on the bridge", () => {
  it("B150: the server:<id> join reply declares the audience feature", async () => {
    const bridge = await testBridge();
    const linked = await server(bridge);
    expect(linked.joined).toEqual({
      status: "ok",
      response: { resume_after: formatEventId(0), features: ["audience"] },
    });
  });

  it("B151: each device gets only its person's events and the ones for everyone, live and by replay; untagged reaches nobody", async () => {
    const bridge = await testBridge();
    const { channel } = await server(bridge);
    const devices = {
      aPlain: await device$(bridge, "aPlain"),
      aSealed: await device$(bridge, "aSealed"),
      bPlain: await device$(bridge, "bPlain"),
      bSealed: await device$(bridge, "bSealed"),
      untagged: await device$(bridge, "untagged"),
    };
    for (const each of Object.values(devices)) expect(each.joined.status).toBe("ok");
    await publish(
      channel,
      chatEvent(1, A),
      chatEvent(2, B),
      everyoneEvent(3),
      // The base protocol's shape from a server that speaks audiences: no tag, nobody.
      { event: testEvent(4), sealed: sealed(4, 1) },
      chatEvent(5, B),
    );
    await until(() => devices.bSealed.frames.length === 3 && devices.aPlain.frames.length === 2, "the deliveries");
    // A last event for A's plain device orders the check: every frame before it has arrived.
    await publish(channel, chatEvent(6, B), chatEvent(7, A));
    await until(() => devices.aPlain.ids().includes(formatEventId(7)), "A's last event");
    await until(() => devices.bPlain.ids().includes(formatEventId(6)), "B's last event");
    // Each device gets its audience's events, every one in the form the device asked for.
    const framesOf = (form: string, ...events: number[]) => events.map((n) => [form, formatEventId(n)]);
    expect(devices.aPlain.frames).toEqual(framesOf("plain", 1, 3, 7));
    expect(devices.aSealed.frames).toEqual(framesOf("sealed", 1, 3, 7));
    expect(devices.bPlain.frames).toEqual(framesOf("plain", 2, 3, 5, 6));
    expect(devices.bSealed.frames).toEqual(framesOf("sealed", 2, 3, 5, 6));
    expect(devices.untagged.frames).toEqual([]);
    for (const each of Object.values(devices)) expect(each.closes).toEqual([]);

    // Replay: B's devices rejoining from the start get B's events and everyone's, complete, and nothing of A's.
    for (const [who, mode] of [
      ["bPlain", "plain"],
      ["bSealed", "sealed"],
    ] as const) {
      const again = await device$(bridge, who, { sinceId: 0 });
      expect(again.joined.response).toMatchObject({ replay: "complete", replayed: 4 });
      await until(() => again.frames.length === 4, `${who}'s replay`);
      expect(again.frames).toEqual(framesOf(mode, 2, 3, 5, 6));
    }
    const untagged = await device$(bridge, "untagged", { sinceId: 0 });
    expect(untagged.joined.response).toMatchObject({ replay: "complete", replayed: 0 });
  });

  it("B152: over long-poll, B's device gets B's events and none of A's, live and by replay", async () => {
    const bridge = await testBridge();
    const { channel } = await server(bridge);
    const poller = (sinceId?: number) => {
      const socket = new Socket(bridge.url, {
        transport: LongPoll,
        params: { token: people.bPlain.token },
        reconnectAfterMs: () => 20,
        rejoinAfterMs: () => 20,
      } as ConstructorParameters<typeof Socket>[1]);
      socket.connect();
      cleanups.push(() => socket.disconnect());
      const feed = socket.channel(
        "events:server:srv1",
        sinceId === undefined ? {} : { since_id: formatEventId(sinceId) },
      );
      return { feed, ...tap(socket, feed) };
    };
    const live = poller();
    expect((await joinOnce(live.feed)).status).toBe("ok");
    await publish(channel, chatEvent(1, A), chatEvent(2, B), chatEvent(3, A), chatEvent(4, B));
    await until(() => live.frames.length === 2, "B's two events over long-poll");
    await publish(channel, chatEvent(5, A), chatEvent(6, B));
    await until(() => live.frames.length === 3, "B's third event");
    expect(live.ids()).toEqual([2, 4, 6].map(formatEventId));

    const replayed = poller(0);
    expect((await joinOnce(replayed.feed)).response).toMatchObject({ replay: "complete", replayed: 3 });
    await until(() => replayed.frames.length === 3, "the long-poll replay");
    expect(replayed.ids()).toEqual([2, 4, 6].map(formatEventId));
  });

  it("B153: a device in the audience without its form is sent away (1012) and told gap; others are untouched", async () => {
    const bridge = await testBridge();
    const { channel } = await server(bridge);
    const bPlain = await device$(bridge, "bPlain");
    const aPlain = await device$(bridge, "aPlain");
    await publish(channel, chatEvent(1, B, { plain: false }), chatEvent(2, A));
    await until(() => bPlain.closes.length > 0, "B's plain device sent away");
    expect(bPlain.closes[0]).toBe(BRIDGE_CLOSE.restart);
    await until(() => aPlain.frames.length === 1, "A's event");
    expect(aPlain.closes).toEqual([]);
    const again = await device$(bridge, "bPlain", { sinceId: 0 });
    expect(again.joined.response).toMatchObject({ replay: "gap" });
  });

  it("B154: a grant whose tag changes sends its sockets away to rejoin under the new one", async () => {
    const bridge = await testBridge();
    const { channel } = await server(bridge);
    const bPlain = await device$(bridge, "bPlain");
    expect(
      (await pushOnce(channel, "grants", { devices: grants({ bPlain: { audience: A } }), codes: [] })).status,
    ).toBe("ok");
    await until(() => bPlain.closes.length > 0, "the regrouped socket sent away");
    expect(bPlain.closes[0]).toBe(BRIDGE_CLOSE.restart);
  });

  it("B155: a server that declares no audiences is one audience: every device it grants gets every event", async () => {
    const bridge = await testBridge();
    const peer = await fakeServer(bridge.url, { devices: [people.aPlain.grant, people.bPlain.grant] });
    const a = await device$(bridge, "aPlain");
    const b = await device$(bridge, "bPlain");
    await publish(peer.channel, { event: testEvent(1) }, { event: testEvent(2) });
    await until(() => a.frames.length === 2 && b.frames.length === 2, "both devices get both events");
  });

  it("B156: a push whose forms go beyond its audience, or name another event, is refused", async () => {
    const bridge = await testBridge();
    const { channel } = await server(bridge);
    const outside = { ...chatEvent(1, A), forms: [{ to: [B], event: testEvent(1) }] };
    expect(await pushOnce(channel, "session_event", outside)).toEqual({
      status: "error",
      response: { reason: "invalid_event" },
    });
    const otherId = { ...chatEvent(1, A), forms: [{ to: [A], event: testEvent(2) }] };
    expect((await pushOnce(channel, "session_event", otherId)).response).toEqual({ reason: "invalid_event" });
    const badTag = { event_id: formatEventId(1), audience: ["a b"], forms: [] };
    expect((await pushOnce(channel, "session_event", badTag)).response).toEqual({ reason: "invalid_event" });
  });
});
