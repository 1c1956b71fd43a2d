// Server status across nodes (docs/bridge.md "Server status", B171, B177, B181, B182): an app on one node is told
// about the server's link on another: its join says `server_online`, and the link's end and return are pushed as
// `server_status`, also when the link's node is killed and says nothing.
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { cleanups, device, fakeServer, joinOnce, until, untilAsync } from "../bridge/helpers.ts";
import { childNode } from "./child-node.ts";
import { appOn, clusterNode, clusterNodes, useRedis, untilGranted } from "./support.ts";

const redisOf = useRedis();

describe("server status in a cluster", () => {
  it("B171: an app on node B hears of the server's link on node A going down and coming back", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const phone = device("d1");
    const server = await fakeServer(a!.url, { devices: [phone.grant] });
    await untilGranted(b!, phone.grant.token_hash);
    const app = await appOn(b!.url, phone.token);
    expect(app.joined.response).toMatchObject({ server_online: true });

    server.socket.disconnect();
    await until(() => app.statuses.length === 1, "offline pushed on node B");
    expect(app.statuses[0]).toMatchObject({ online: false });
    await fakeServer(a!.url, { devices: [phone.grant] });
    await until(() => app.statuses.length === 2, "online pushed on node B");
    expect(app.statuses[1]).toMatchObject({ online: true });
  });

  it("B177: an app on node B hears the server offline when node A, holding its link, is killed", async () => {
    const keyPrefix = `st${Date.now()}`;
    const a = await childNode(redisOf().url, keyPrefix, "nodeA");
    const b = await clusterNode(redisOf(), keyPrefix, "nodeB");
    const phone = device("d1");
    await fakeServer(a.url, { devices: [phone.grant] });
    await untilGranted(b, phone.grant.token_hash);
    const app = await appOn(b.url, phone.token);
    expect(app.joined.response).toMatchObject({ server_online: true });
    a.child.kill("SIGKILL");
    // Node A's claim lapses (linkTtlMs 900 ms); node B's next heartbeat finds it gone.
    await until(() => app.statuses.length === 1, "offline pushed on node B", 10_000);
    expect(app.statuses[0]).toMatchObject({ online: false });
  });

  it("B181: a node started after the link came up (it never heard the link's message) still pushes the kill", async () => {
    const keyPrefix = `late${Date.now()}`;
    const a = await childNode(redisOf().url, keyPrefix, "nodeA");
    const phone = device("d1");
    await fakeServer(a.url, { devices: [phone.grant] });
    // Node B subscribes only now: the link's `online` message went out before it listened. Its join learns the
    // link from the claim in Redis, and what the join told its app is what node B must keep watching.
    const b = await clusterNode(redisOf(), keyPrefix, "nodeB");
    await untilGranted(b, phone.grant.token_hash);
    const app = await appOn(b.url, phone.token);
    expect(app.joined.response).toMatchObject({ server_online: true });
    a.child.kill("SIGKILL");
    await until(() => app.statuses.length === 1, "offline pushed on node B", 10_000);
    expect(app.statuses).toEqual([expect.objectContaining({ online: false })]);
  });

  it("B182: a change a join reads from the claim is pushed to the apps already subscribed, not to the joiner", async () => {
    const keyPrefix = `told${Date.now()}`;
    const a = await childNode(redisOf().url, keyPrefix, "nodeA");
    const [first, second] = [device("d1"), device("d2")];
    await fakeServer(a.url, { devices: [first.grant, second.grant] });
    // Node B's heartbeat beats once at its start and not again within the test: only a join can find the lapse.
    const b = await clusterNode(redisOf(), keyPrefix, "nodeB", {
      cluster: { heartbeatMs: 60_000, linkTtlMs: 180_000 },
    });
    await untilGranted(b, second.grant.token_hash);
    const firstApp = await appOn(b.url, first.token);
    expect(firstApp.joined.response).toMatchObject({ server_online: true });

    a.child.kill("SIGKILL");
    const reader = new Redis(redisOf().url);
    cleanups.push(() => reader.disconnect());
    await untilAsync(
      async () => (await reader.exists(`${keyPrefix}:link:srv1`)) === 0,
      "node A's claim lapsed",
      10_000,
    );
    expect(firstApp.statuses).toEqual([]);

    const secondApp = await appOn(b.url, second.token);
    expect(secondApp.joined.response).toMatchObject({ server_online: false });
    await until(() => firstApp.statuses.length === 1, "offline pushed to the app already subscribed");
    expect(firstApp.statuses).toEqual([expect.objectContaining({ online: false })]);
    // A push queued for the joiner would arrive before the reply to its next join on the same socket.
    await joinOnce(secondApp.socket.channel("events:server:unknown", {}));
    expect(secondApp.statuses).toEqual([]);
  });
});
