// End to end per person (docs/security.md S20-S24): two people on one server and a real bridge. Person B's devices,
// their sockets tapped, get B's chat (the positive control) and no frame of A's, live and by replay, over WebSocket
// (the client library, and the stock phoenix client) and long-poll (stock phoenix); every content key B can fetch
// opens none of A's sealed events; revoking one of A's devices leaves it unable to open what A is sent later and
// leaves B's keys as they were. A chat shared with B reaches B's socket only between the share and the unshare (S24).
import { createHash } from "node:crypto";
import { LongPoll, Socket } from "phoenix";
import { describe, expect, it } from "vitest";
import { WebSocket as NodeWebSocket } from "ws";
import { connect } from "../../client/index.ts";
import type { SealedEvent } from "../../client/wire/e2e.ts";
import { BRIDGE_FEATURES } from "../../client/wire/frames.ts";
import { Router } from "../../bridge/channels/router.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import type { BufferedEvent } from "../../bridge/fanout/replay-buffer.ts";
import { PeopleStore } from "../../server/people/people-store.ts";
import { FAST_RECONNECT, type Stack, until, untilLive } from "../client/support/stack.ts";
import { useStack } from "../support/use-stack.ts";
import { keysOf, openedIds } from "./device-keys.ts";

const scope = useStack();

/** Every text frame a WebSocket of the client library receives: its socket, tapped. */
function tappedWebSocket(frames: string[]) {
  return class TappedWebSocket extends NodeWebSocket {
    constructor(...args: ConstructorParameters<typeof NodeWebSocket>) {
      super(...args);
      this.on("message", (data) => void frames.push(String(data)));
    }
  };
}

/** A stock phoenix client (WebSocket or long-poll) on B's plain device, every message on its socket recorded. */
function stockClient(stack: Stack, token: string, transport: "websocket" | "longpoll", sinceId?: string) {
  const frames: string[] = [];
  const socket = new Socket(stack.bridgeUrl, {
    params: { token },
    reconnectAfterMs: () => 20,
    rejoinAfterMs: () => 20,
    ...(transport === "longpoll" ? { transport: LongPoll } : { transport: NodeWebSocket }),
  } as ConstructorParameters<typeof Socket>[1]);
  socket.onMessage((message: object) => void frames.push(JSON.stringify(message)));
  socket.connect();
  scope.onClose(() => socket.disconnect());
  const channel = socket.channel("events:server:srv1", sinceId === undefined ? {} : { since_id: sinceId });
  const joined = new Promise<Record<string, unknown>>((resolve, reject) =>
    channel.join().receive("ok", resolve).receive("error", reject),
  );
  return { frames, joined };
}

/** The ids of the events the bridge holds a plain form of. */
function bufferedPlainIds(stack: Stack): string[] {
  const items = (
    stack.bridge!.core.registry.get("srv1")!.buffer as unknown as { items: Array<BufferedEvent | undefined> }
  ).items;
  return items.flatMap((item) => (item?.forms.some((form) => form.mode === "plain") ? [item.id] : []));
}

/** Every sealed form the bridge holds (its replay buffer: what it could give anyone). */
function bufferedSealed(stack: Stack): SealedEvent[] {
  const items = (
    stack.bridge!.core.registry.get("srv1")!.buffer as unknown as { items: Array<BufferedEvent | undefined> }
  ).items;
  return items
    .flatMap((item) => item?.forms.filter((form) => form.mode === "e2e") ?? [])
    .map((form) => JSON.parse(form.json) as SealedEvent);
}

/**
 * Owner (A) and a second person B, each with devices: A's laptop (end to end) and spare phone (end to end), B's laptop
 * (end to end) and phone (plain). Devices are paired as the admin, then given to their person in the database (the
 * pairing for another person is the people routes' business), and the grants go to the bridge again.
 */
async function twoPeople(stack: Stack) {
  const ctx = stack.server.runtime.ctx;
  const personA = ctx.e2e.audiences.livePeople()[0]!;
  const devices = {
    aLaptop: await stack.pair("a-laptop"),
    aSpare: await stack.pair("a-spare"),
    bLaptop: await stack.pair("b-laptop"),
    bPhone: await stack.pair("b-phone", { e2e: false }),
  };
  const personB = new PeopleStore(ctx.db, ctx.clock).create({ name: "B" }).id;
  const give = ctx.db.prepare("UPDATE devices SET person_id = ? WHERE id = ?");
  for (const [name, credentials] of Object.entries(devices))
    give.run(name.startsWith("a") ? personA : personB, credentials.device_id);
  // Any pairing change sends the grants again, now with each device's person's tag.
  await stack.pairingCode();
  const tagB = ctx.e2e.audiences.tagOf(personB);
  await until(
    () => stack.bridge!.core.registry.grantOf("srv1", sha256(devices.bPhone.device_token))?.audience === tagB,
    "B's tag on the bridge",
  );
  return { ctx, personA, personB, devices };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A chat of `owner` with `count` messages carrying `marker`; its event ids as the store has them. */
async function chatOf(stack: Stack, owner: string, marker: string, count: number): Promise<string[]> {
  const { sessions, events } = stack.server.runtime.ctx;
  const session = sessions.create("default", undefined, owner);
  for (let i = 0; i < count; i++) sessions.append(session.id, { role: "user", content: `${marker} ${i}` });
  return events.list({ sinceId: 0, sessionId: session.id, limit: 1000 }).events.map((event) => event.event_id);
}

describe("end to end per person", () => {
  it("S20: B's tapped sockets get B's chat and no frame of A's, live and by replay, WebSocket and long-poll, library and stock client", async () => {
    const stack = await scope.start();
    const { personA, personB, devices } = await twoPeople(stack);
    const libraryFrames: string[] = [];
    const library = scope.own(
      connect(devices.bLaptop, { ...FAST_RECONNECT, WebSocket: tappedWebSocket(libraryFrames) as never }),
    );
    const heardByB: AnyEvent[] = [];
    library.on("*", (event) => heardByB.push(event));
    const libraryA = scope.own(connect(devices.aLaptop, FAST_RECONNECT));
    const heardByA: AnyEvent[] = [];
    libraryA.on("*", (event) => heardByA.push(event));
    await untilLive(library);
    await untilLive(libraryA);
    const stockWs = stockClient(stack, devices.bPhone.device_token, "websocket");
    const stockPoll = stockClient(stack, devices.bPhone.device_token, "longpoll");
    await stockWs.joined;
    await stockPoll.joined;

    const idsA = await chatOf(stack, personA, "SECRET-OF-A", 3);
    const idsB = await chatOf(stack, personB, "NOTE-OF-B", 3);
    const seesB = (frames: string[]) => idsB.every((id) => frames.some((frame) => frame.includes(id)));
    // The positive control: B's chat reaches every one of B's sockets, in clear where the device reads plain.
    await until(
      () => heardByB.some((event) => JSON.stringify(event).includes("NOTE-OF-B 2")),
      "B's library read B's chat",
    );
    await until(() => seesB(stockWs.frames) && seesB(stockPoll.frames), "B's stock clients got B's chat");
    expect(stockWs.frames.some((frame) => frame.includes("NOTE-OF-B 2"))).toBe(true);
    await until(() => heardByA.some((event) => JSON.stringify(event).includes("SECRET-OF-A 2")), "A read A's chat");

    const replayWs = stockClient(stack, devices.bPhone.device_token, "websocket", "0".repeat(20));
    const replayPoll = stockClient(stack, devices.bPhone.device_token, "longpoll", "0".repeat(20));
    expect(await replayWs.joined).toMatchObject({ replay: "complete" });
    expect(await replayPoll.joined).toMatchObject({ replay: "complete" });
    await until(() => seesB(replayWs.frames) && seesB(replayPoll.frames), "B's replays hold B's chat");

    for (const frames of [libraryFrames, stockWs.frames, stockPoll.frames, replayWs.frames, replayPoll.frames]) {
      expect(frames.filter((frame) => idsA.some((id) => frame.includes(id)))).toEqual([]);
      expect(frames.filter((frame) => frame.includes("SECRET-OF-A"))).toEqual([]);
    }
    expect(heardByB.filter((event) => JSON.stringify(event).includes("SECRET-OF-A"))).toEqual([]);
  });

  it("S21: no content key B can fetch opens any of A's sealed events; A's chat is never in clear on the bridge", async () => {
    const stack = await scope.start();
    const { personA, personB, devices } = await twoPeople(stack);
    const idsA = await chatOf(stack, personA, "SECRET-OF-A", 3);
    const idsB = await chatOf(stack, personB, "NOTE-OF-B", 3);
    await until(() => stack.bridge!.core.registry.get("srv1")!.lastId === stack.latestId(), "the bridge holds all");
    const sealed = bufferedSealed(stack);
    const ofA = sealed.filter((envelope) => idsA.includes(envelope.event_id));
    expect(ofA.map((envelope) => envelope.event_id)).toEqual(idsA);
    const keysB = await keysOf(stack, devices.bLaptop);
    expect(openedIds(ofA, keysB)).toEqual([]);
    // The control: B's keys open B's chat, and A's keys open A's.
    expect(
      openedIds(
        sealed.filter((envelope) => idsB.includes(envelope.event_id)),
        keysB,
      ),
    ).toEqual(idsB);
    expect(openedIds(ofA, await keysOf(stack, devices.aLaptop))).toEqual(idsA);
    // A has no plain device: the bridge is never given A's chat in clear; B has one, so B's goes in clear too.
    const plain = bufferedPlainIds(stack);
    expect(plain.filter((id) => idsA.includes(id))).toEqual([]);
    expect(plain.filter((id) => idsB.includes(id))).toEqual(idsB);
  });

  it("S22: a revoked device of A opens nothing published after; B's keys are not rotated by it", async () => {
    const stack = await scope.start();
    const { ctx, personA, personB, devices } = await twoPeople(stack);
    const keysBBefore = await keysOf(stack, devices.bLaptop);
    const spareKeys = await keysOf(stack, devices.aSpare);
    const currentB = ctx.e2e.contentKeys.current(personB).keyId;
    const revoked = await stack.server.request({ method: "DELETE", url: `/devices/${devices.aSpare.device_id}` });
    expect(revoked.status).toBe(200);
    const idsA = await chatOf(stack, personA, "AFTER-REVOCATION", 2);
    await until(() => stack.bridge!.core.registry.get("srv1")!.lastId === stack.latestId(), "the bridge holds all");
    const after = bufferedSealed(stack).filter((envelope) => idsA.includes(envelope.event_id));
    expect(after.map((envelope) => envelope.event_id)).toEqual(idsA);
    expect(openedIds(after, spareKeys)).toEqual([]);
    // A's remaining laptop reads them; B's key stays the one B already holds.
    expect(openedIds(after, await keysOf(stack, devices.aLaptop))).toEqual(idsA);
    expect(ctx.e2e.contentKeys.current(personB).keyId).toBe(currentB);
    const keysBAfter = await keysOf(stack, devices.bLaptop);
    expect(keysBAfter.get(currentB)).toEqual(keysBBefore.get(currentB));
  });
});

describe("a bridge that cannot route by audience", () => {
  it("S23: is sent the base protocol while one person lives here, and is no longer linked once there are two", async () => {
    // An older bridge: its join reply lists no features, and it knows nothing of the server's.
    const features = BRIDGE_FEATURES as string[];
    const saved = features.splice(0);
    const handle = Router.prototype.handle;
    Router.prototype.handle = function (this: Router, connection, frame) {
      if (frame.event === "phx_join" && frame.topic.startsWith("server:")) delete frame.payload.features;
      return handle.call(this, connection, frame);
    };
    scope.onClose(() => {
      features.push(...saved);
      Router.prototype.handle = handle;
    });
    const stack = await scope.start();
    const device = await stack.pair("phone", { e2e: false });
    const socket = stockClient(stack, device.device_token, "websocket");
    await socket.joined;
    const { ctx } = stack.server.runtime;
    const owner = ctx.e2e.audiences.livePeople()[0]!;
    const before = await chatOf(stack, owner, "ONE-PERSON", 1);
    await until(() => socket.frames.some((frame) => frame.includes(before[0]!)), "the event over the base protocol");

    new PeopleStore(ctx.db, ctx.clock).create({ name: "B" });
    const after = await chatOf(stack, owner, "TWO-PEOPLE", 1);
    const state = stack.bridge!.core.registry.get("srv1")!;
    await until(() => state.liveLink === undefined, "the server left the bridge");
    // The bridge tells its sockets after the link is gone: waited for, not assumed already arrived.
    await until(() => socket.frames.some((frame) => frame.includes('"online":false')), "the socket told so");
    expect(socket.frames.some((frame) => frame.includes(after[0]!))).toBe(false);
  });

  it("S24: B's tapped socket gets no frame of A's chat before a share, its new events and history after, and after the unshare session_access_revoked then nothing", async () => {
    const stack = await scope.start();
    const { personA, personB, devices } = await twoPeople(stack);
    const phone = stockClient(stack, devices.bPhone.device_token, "websocket");
    await phone.joined;
    const { sessions } = stack.server.runtime.ctx;
    const chat = sessions.create("default", undefined, personA).id;
    sessions.append(chat, { role: "user", content: "BEFORE-SHARE-OF-A" });
    let round = 0;
    // A positive control: B's own chat reaches B's socket, so what did not arrive by then never will in order.
    const control = async () => {
      const marker = `CONTROL-OF-B-${++round}`;
      await chatOf(stack, personB, marker, 1);
      await until(() => phone.frames.some((frame) => frame.includes(marker)), marker);
    };
    await control();
    expect(phone.frames.filter((frame) => frame.includes(chat))).toEqual([]);

    const shared = await stack.server.request({
      method: "POST",
      url: `/sessions/${chat}/shares`,
      payload: { person_id: personB, access: "read" },
    });
    expect(shared.status, shared.text).toBe(200);
    sessions.append(chat, { role: "user", content: "AFTER-SHARE-OF-A" });
    await until(() => phone.frames.some((frame) => frame.includes("AFTER-SHARE-OF-A")), "the chat's new event");
    expect(phone.frames.some((frame) => frame.includes("session_access_granted") && frame.includes(chat))).toBe(true);
    const history = await stack.server.request({
      method: "GET",
      url: `/sessions/${chat}`,
      token: devices.bPhone.device_token,
    });
    expect(history.status).toBe(200);
    expect(history.text).toContain("BEFORE-SHARE-OF-A");

    const unshared = await stack.server.request({ method: "DELETE", url: `/sessions/${chat}/shares/${personB}` });
    expect(unshared.status).toBe(204);
    await until(
      () => phone.frames.some((frame) => frame.includes("session_access_revoked") && frame.includes(chat)),
      "session_access_revoked",
    );
    const revokedAt = phone.frames.length;
    sessions.append(chat, { role: "user", content: "AFTER-UNSHARE-OF-A" });
    await control();
    expect(phone.frames.slice(revokedAt).filter((frame) => frame.includes(chat))).toEqual([]);
    expect(phone.frames.filter((frame) => frame.includes("AFTER-UNSHARE-OF-A"))).toEqual([]);
    const refused = await stack.server.request({
      method: "GET",
      url: `/sessions/${chat}`,
      token: devices.bPhone.device_token,
    });
    expect(refused.status).toBe(404);
  });
});
