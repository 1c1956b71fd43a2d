// Share links on every node of a cluster (docs/bridge.md "Share links", BL8): the server is linked on node A, a phone
// reaches node B. B asks A's link through the shared state, answers the server's bytes, holds nothing readable, and
// refuses the link once its revoke has answered; nothing of the link is kept in Redis. A real server, a real
// redis-server, two bridge nodes, stock fetch.
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { until } from "../bridge/helpers.ts";
import { chatOf, startHousehold } from "../people/support.ts";
import { forwardTo } from "../relay/stack.ts";
import { cleanups, clusterNodes, useRedis } from "./support.ts";

const redisOf = useRedis();

/** Every value Redis holds now, as text, whatever the key's type. */
async function everythingIn(url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const texts: string[] = [];
    for (const key of await redis.keys("*")) {
      const type = await redis.type(key);
      const value =
        type === "string"
          ? await redis.get(key)
          : type === "hash"
            ? await redis.hgetall(key)
            : type === "list"
              ? await redis.lrange(key, 0, -1)
              : type === "set"
                ? await redis.smembers(key)
                : type === "zset"
                  ? await redis.zrange(key, 0, -1)
                  : type === "stream"
                    ? await redis.xrange(key, "-", "+")
                    : type;
      texts.push(key, JSON.stringify(value));
    }
    return texts.join("\n");
  } finally {
    redis.disconnect();
  }
}

it("BL8: node B serves a link of the server linked on node A, refuses it once revoked; Redis keeps nothing of it", async () => {
  const [a, b] = await clusterNodes(redisOf(), 2);
  const h = await startHousehold({ server: { server_id: "srv1", public_url: "http://127.0.0.1:1" } });
  cleanups.push(() => h.server.close());
  await forwardTo(h.server, a!, "the server joined node A");
  await until(() => b!.core.registry.get("srv1") !== undefined, "node B knows the server");
  const marker = "NARWHAL-CLUSTER-PLAINTEXT-9902";
  const chat = await chatOf(h.server, h.admin.e2e.token, marker);
  const made = await h.server.request({
    method: "POST",
    url: `/sessions/${chat}/share-links`,
    token: h.admin.e2e.token,
    payload: {},
  });
  const token = (made.json as { token: string }).token;
  const server = await h.server.request({ method: "GET", url: `/shared/${token}`, token: null });
  for (const node of [b!, a!]) {
    const answer = await fetch(`${node.httpUrl}/shared/${token}`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(server.text);
  }
  expect(server.text).not.toContain(marker);
  expect(b!.sharedBlobs.cachedTexts()).toEqual([server.text]);
  // Nothing of the link goes into Redis: parts travel on the inbox's pub/sub only. (The chat's words may be in the
  // replay history, in the plain form a plain device of the household gets: events, not links, docs/bridge.md
  // "Audiences".)
  const dump = await everythingIn(redisOf().url);
  const { ciphertext } = JSON.parse(server.text) as { ciphertext: string };
  expect(dump).not.toContain(ciphertext.slice(0, 64));
  expect(dump).not.toContain(token);

  const revoked = await h.server.request({
    method: "DELETE",
    url: `/sessions/${chat}/share-links/${token}`,
    token: h.admin.e2e.token,
  });
  expect(revoked.status).toBe(204);
  const gone = await fetch(`${b!.httpUrl}/shared/${token}`);
  expect(gone.status).toBe(404);
  expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("share_link_not_found");
  expect(b!.sharedBlobs.cachedTexts()).toEqual([]);
});
