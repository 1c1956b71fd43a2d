// Redis restarted empty (docs/bridge.md "Cluster", B113–B115): the nodes notice (a new epoch), write their view of
// the registry back and re-claim their links; live fan-out goes on; a replay from before the restart is a gap, one
// after the history built up again is complete; nothing crashes. The file's own redis-server, killed and started
// again empty on the same port.
import { describe, expect, it } from "vitest";
import { formatEventId } from "../../client/wire/index.ts";
import { device, fakeServer, pushOnce, testEvent, until } from "../bridge/helpers.ts";
import { appOn, clusterNode, clusterNodes, figuresOf, ids, useRedis, untilGranted } from "./support.ts";

const redisOf = useRedis();

const phone = device("dev_phone");

describe("Redis restarted empty", () => {
  it("B113: live fan-out goes on, replays from before answer gap until history builds up again, the registry is written back", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const server = await fakeServer(a!.url, { devices: [phone.grant] });
    await untilGranted(b!, phone.grant.token_hash);
    const live = await appOn(b!.url, phone.token);
    const push = async (first: number, last: number) => {
      for (let n = first; n <= last; n++)
        expect((await pushOnce(server.channel, "session_event", { event: testEvent(n) })).status).toBe("ok");
    };
    await push(1, 10);
    await until(() => live.received.length === 10, "10 events live on B");

    await redisOf().restart();
    await until(
      () => figuresOf(a!).epochChanges >= 1 && figuresOf(b!).epochChanges >= 1,
      "both nodes saw the new epoch",
      10_000,
    );
    await push(11, 20);
    await until(() => live.received.length === 20, "live fan-out after the restart", 10_000);
    expect(live.received).toEqual(ids(1, 20));

    expect((await appOn(b!.url, phone.token, { since_id: 5 })).joined.response).toMatchObject({
      replay: "gap",
      last_event_id: formatEventId(20),
    });
    const after = await appOn(b!.url, phone.token, { since_id: 15 });
    expect(after.joined.response).toMatchObject({ replay: "complete", replayed: 5 });

    // The registry and the link claim are back in Redis: a node started now knows the device, and the server's
    // credential cannot be used on it while the link lives on A.
    const c = await clusterNode(redisOf(), a!.core.config.cluster.keyPrefix, "late");
    expect((await appOn(c.url, phone.token)).joined.status).toBe("ok");
    expect((await fakeServer(c.url)).joined).toEqual({ status: "error", response: { reason: "already_connected" } });
  });

  it("B114: /health says whether Redis answers and /metrics shows the cluster's figures; a node rides out Redis being away", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const server = await fakeServer(a!.url, { devices: [phone.grant] });
    expect(server.joined.status).toBe("ok");
    const health = async () => (await fetch(`${a!.httpUrl}/health`)).json();
    expect(await health()).toEqual({ ok: true, node: "node0", redis: "ok" });
    const metric = async (name: string) =>
      Number(new RegExp(`^${name} (\\d+)$`, "m").exec(await (await fetch(`${b!.httpUrl}/metrics`)).text())?.[1]);
    await until(() => figuresOf(b!).nodes === 2 && figuresOf(b!).linkedServers === 1, "the figures refreshed");
    expect(await metric("bridge_cluster_nodes")).toBe(2);
    expect(await metric("bridge_cluster_servers_linked")).toBe(1);

    await redisOf().kill();
    expect(await health()).toEqual({ ok: true, node: "node0", redis: "unreachable" });
    await redisOf().restart();
    await until(() => figuresOf(a!).epochChanges >= 1, "node A back on the new Redis", 10_000);
    expect(await health()).toEqual({ ok: true, node: "node0", redis: "ok" });
  });
});
