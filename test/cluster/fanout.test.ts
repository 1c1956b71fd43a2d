// Fan-out and replay across nodes (docs/bridge.md "Cluster", B100–B104): a server linked on node A, apps on node B
// get its events live, in order, exactly once; a join with since_id on any node replays from the shared history or
// answers `gap`; one live link per server across nodes. A real redis-server, in-process nodes, official phoenix
// clients.
import { describe, expect, it } from "vitest";
import { formatEventId } from "../../client/wire/index.ts";
import { device, fakeServer, pushOnce, testEvent, until, untilAsync, CREDENTIAL } from "../bridge/helpers.ts";
import { appOn, clusterNodes, ids, useRedis, untilGranted } from "./support.ts";

const redisOf = useRedis();

const phone = device("dev_phone");

async function push(server: Awaited<ReturnType<typeof fakeServer>>, first: number, last: number): Promise<void> {
  for (let n = first; n <= last; n++)
    expect((await pushOnce(server.channel, "session_event", { event: testEvent(n) })).status).toBe("ok");
}

describe("a cluster of bridge nodes", () => {
  it("B100: delivers a server's events from node A to apps on node B live, in order, exactly once", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const server = await fakeServer(a!.url, { devices: [phone.grant] });
    expect(server.joined.status).toBe("ok");
    await untilGranted(b!, phone.grant.token_hash);
    const onB = await appOn(b!.url, phone.token);
    const onA = await appOn(a!.url, phone.token);
    expect(onB.joined.status).toBe("ok");
    await push(server, 1, 60);
    await until(() => onB.received.length >= 60 && onA.received.length >= 60, "60 events on both nodes", 10_000);
    // One more event: a duplicate of the first 60 would reach each node's app before it, in order.
    await push(server, 61, 61);
    await until(() => onB.received.at(-1) === formatEventId(61) && onA.received.at(-1) === formatEventId(61), "61");
    expect(onB.received).toEqual(ids(1, 61));
    expect(onA.received).toEqual(ids(1, 61));
  });

  it("B101: replays from the shared history on a node the server never joined, then goes on live without a repeat", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const server = await fakeServer(a!.url, { devices: [phone.grant] });
    await push(server, 1, 20);
    await untilGranted(b!, phone.grant.token_hash);
    const app = await appOn(b!.url, phone.token, { since_id: 10, epoch: "epoch-1" });
    expect(app.joined.response).toMatchObject({
      replay: "complete",
      replayed: 10,
      last_event_id: formatEventId(20),
      epoch: "epoch-1",
    });
    await push(server, 21, 25);
    await until(() => app.received.length >= 15, "replay and live events");
    // One more event: a repeat of the replayed or live ones would reach the app before it, in order.
    await push(server, 26, 26);
    await until(() => app.received.at(-1) === formatEventId(26), "event 26");
    expect(app.received).toEqual(ids(11, 26));
  });

  it("B102: answers `gap` when the history does not reach back (BRIDGE_REPLAY_EVENTS, BRIDGE_REPLAY_BYTES, another epoch)", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2, { replayEvents: 5 });
    const server = await fakeServer(a!.url, { devices: [phone.grant] });
    await push(server, 1, 20);
    await untilGranted(b!, phone.grant.token_hash);
    expect((await appOn(b!.url, phone.token, { since_id: 10 })).joined.response).toMatchObject({
      replay: "gap",
      last_event_id: formatEventId(20),
    });
    expect((await appOn(b!.url, phone.token, { since_id: 15 })).joined.response).toMatchObject({
      replay: "complete",
      replayed: 5,
    });
    expect((await appOn(b!.url, phone.token, { since_id: 15, epoch: "another-store" })).joined.response).toMatchObject({
      replay: "gap",
    });

    // ~100 bytes of payload each: 300 bytes hold two or three of them.
    const [c, d] = await clusterNodes(redisOf(), 2, { replayBytes: 300 });
    const other = await fakeServer(c!.url, { devices: [phone.grant], serverId: "srv2" });
    await push(other, 1, 10);
    await until(
      () => d!.core.registry.deviceOf("srv2", phone.grant.token_hash) !== undefined,
      "the grant reached node D",
    );
    expect((await appOn(d!.url, phone.token, { since_id: 5 }, "srv2")).joined.response).toMatchObject({
      replay: "gap",
    });
    expect((await appOn(d!.url, phone.token, { since_id: 9 }, "srv2")).joined.response).toMatchObject({
      replay: "complete",
      replayed: 1,
    });
  });

  it("B103: holds one live link per server across nodes: a second join on another node is already_connected", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const first = await fakeServer(a!.url);
    expect(first.joined.status).toBe("ok");
    const twin = await fakeServer(b!.url);
    expect(twin.joined).toEqual({ status: "error", response: { reason: "already_connected" } });
    const impostor = await fakeServer(b!.url, { credential: CREDENTIAL.replace(/k$/, "x") });
    expect(impostor.joined).toEqual({ status: "error", response: { reason: "unauthorized" } });
    // Once the first leaves, another node may hold the link at once.
    first.socket.disconnect();
    await until(() => a!.core.registry.get("srv1")?.link === undefined, "the link on A ended");
    // A's claim is given back in Redis a moment after its link ends: B sees nobody holding it.
    const onB = b!.core.registry.get("srv1")!;
    await untilAsync(async () => !(await b!.core.servers.linkStatus(onB)).online, "A's claim released");
    const next = await fakeServer(b!.url);
    expect(next.joined.status).toBe("ok");
  });

  it("B104: an event arriving behind newer ones on the link makes replays from before it a gap on every node", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const server = await fakeServer(a!.url, { devices: [phone.grant], cursor: 516 });
    await untilGranted(b!, phone.grant.token_hash);
    // Issue 11's order: stale 541, 542 ahead of the resend from the cursor; 517 comes late.
    await push(server, 541, 542);
    expect((await appOn(b!.url, phone.token, { since_id: 516 })).joined.response).toMatchObject({
      replay: "complete",
      replayed: 2,
    });
    expect((await pushOnce(server.channel, "session_event", { event: testEvent(517) })).status).toBe("ok");
    expect((await appOn(b!.url, phone.token, { since_id: 516 })).joined.response).toMatchObject({ replay: "gap" });
    expect((await appOn(b!.url, phone.token, { since_id: 542 })).joined.response).toMatchObject({
      replay: "complete",
      replayed: 0,
    });
  });
});
