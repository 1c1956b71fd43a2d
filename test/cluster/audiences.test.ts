// Audiences across nodes (docs/bridge.md "Audiences" and "Cluster", B157): a server that speaks audiences linked on
// node A; a device of person B on node B gets B's events and none of A's, live through the events channel and by
// replay from the shared history in Redis, whose forms keep their audience; A's device on node B gets only A's.
import { describe, expect, it } from "vitest";
import { formatEventId } from "../../client/wire/index.ts";
import { device, fakeServer, pushOnce, testEvent, until } from "../bridge/helpers.ts";
import { appOn, clusterNodes, useRedis } from "./support.ts";

const redisOf = useRedis();

const phoneA = device("a-phone");
const phoneB = device("b-phone");
const A = "tag-a";
const B = "tag-b";

function chatEvent(sequence: number, tag: string) {
  return { event_id: formatEventId(sequence), audience: [tag], forms: [{ to: [tag], event: testEvent(sequence) }] };
}

describe("audiences in a cluster", () => {
  it("B157: a device on another node gets only its person's events, live and from the shared history", async () => {
    const [a, b] = await clusterNodes(redisOf(), 2);
    const server = await fakeServer(a!.url, {
      devices: [
        { ...phoneA.grant, audience: A },
        { ...phoneB.grant, audience: B },
      ],
      features: ["audience"],
    });
    expect(server.joined.response).toMatchObject({ features: ["audience"] });
    await until(
      () => b!.core.registry.grantOf("srv1", phoneB.grant.token_hash)?.audience === B,
      "B's tagged grant reached node B",
    );
    const liveB = await appOn(b!.url, phoneB.token);
    const liveA = await appOn(b!.url, phoneA.token);
    for (let n = 1; n <= 6; n++)
      expect((await pushOnce(server.channel, "session_event", chatEvent(n, n % 2 === 0 ? B : A))).status).toBe("ok");
    await until(() => liveB.received.length === 3 && liveA.received.length === 3, "each person's three events");
    expect(liveB.received).toEqual([2, 4, 6].map(formatEventId));
    expect(liveA.received).toEqual([1, 3, 5].map(formatEventId));

    const replayB = await appOn(b!.url, phoneB.token, { since_id: 0, epoch: "epoch-1" });
    expect(replayB.joined.response).toMatchObject({ replay: "complete", replayed: 3 });
    await until(() => replayB.received.length === 3, "B's replay from Redis");
    expect(replayB.received).toEqual([2, 4, 6].map(formatEventId));
    for (const app of [liveA, liveB, replayB]) expect(app.closes).toEqual([]);
  });
});
