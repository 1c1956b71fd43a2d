// Server status across nodes (docs/bridge.md "Server status", B171, B177): an app on one node is told about the
// server's link on another: its join says `server_online`, and the link's end and return are pushed as
// `server_status`, also when the link's node is killed and says nothing.
import { describe, expect, it } from "vitest";
import { device, fakeServer, until } from "../bridge/helpers.ts";
import { childNode } from "./child-node.ts";
import { clusterNode, clusterNodes, useRedis } from "./support.ts";
import { joinOnce, phoenixSocket } from "../bridge/helpers.ts";

const redisOf = useRedis();

describe("server status in a cluster", () => {
  it("B171: an app on node B hears of the server's link on node A going down and coming back", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const phone = device("d1");
    const server = await fakeServer(a!.url, { devices: [phone.grant] });
    await until(
      () => b!.core.registry.deviceOf("srv1", phone.grant.token_hash) !== undefined,
      "the grants reached node B",
    );
    const socket = phoenixSocket(b!.url, { params: { token: phone.token } });
    const channel = socket.channel("events:server:srv1", {});
    const statuses: Array<{ online: boolean }> = [];
    channel.on("server_status", (payload: { online: boolean }) => void statuses.push(payload));
    expect((await joinOnce(channel)).response).toMatchObject({ server_online: true });

    server.socket.disconnect();
    await until(() => statuses.length === 1, "offline pushed on node B");
    expect(statuses[0]).toMatchObject({ online: false });
    await fakeServer(a!.url, { devices: [phone.grant] });
    await until(() => statuses.length === 2, "online pushed on node B");
    expect(statuses[1]).toMatchObject({ online: true });
  });

  it("B177: an app on node B hears the server offline when node A, holding its link, is killed", async () => {
    const keyPrefix = `st${Date.now()}`;
    const a = await childNode(redisOf().url, keyPrefix, "nodeA");
    const b = await clusterNode(redisOf(), keyPrefix, "nodeB");
    const phone = device("d1");
    await fakeServer(a.url, { devices: [phone.grant] });
    await until(
      () => b.core.registry.deviceOf("srv1", phone.grant.token_hash) !== undefined,
      "the grants reached node B",
    );
    const socket = phoenixSocket(b.url, { params: { token: phone.token } });
    const channel = socket.channel("events:server:srv1", {});
    const statuses: Array<{ online: boolean }> = [];
    channel.on("server_status", (payload: { online: boolean }) => void statuses.push(payload));
    expect((await joinOnce(channel)).response).toMatchObject({ server_online: true });
    a.child.kill("SIGKILL");
    // Node A's claim lapses (linkTtlMs 900 ms); node B's next heartbeat finds it gone.
    await until(() => statuses.length === 1, "offline pushed on node B", 10_000);
    expect(statuses[0]).toMatchObject({ online: false });
  });
});
