// Log budgets (docs/bridge.md "Logging", B38): a peer decides how often it is refused, so each socket (and, before the
// upgrade, each address) writes at most `logLinesPerPeer` records per window; the rest are counted and summarized
// when its window ends or its socket closes. Everyone else keeps logging.
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { cleanups, runCleanups, testBridge, until, type TestBridge } from "./helpers.ts";
import { byRef, rawClient } from "./raw-client.ts";

afterEach(runCleanups);

const REFUSED = "push on a topic the socket has not joined";

const recordsOf = (bridge: TestBridge, msg: string, socket?: number) =>
  bridge.log.records.filter(
    (record) => record.msg === msg && (socket === undefined || record.fields.socket === socket),
  );

/** Sends `count` pushes on a topic the socket never joined and waits for every refusal. */
async function refusedPushes(
  client: Awaited<ReturnType<typeof rawClient>>,
  count: number,
  firstRef: number,
): Promise<void> {
  for (let ref = firstRef; ref < firstRef + count; ref++)
    client.send([null, String(ref), "events:server:srv1", "api", { method: "GET", path: "/sessions" }]);
  await client.next(byRef(String(firstRef + count - 1)), "the last refusal");
}

describe("log budget per peer", () => {
  it("writes a refusing socket's first lines, then one summary per message, per window and on close (B38)", async () => {
    const bridge = await testBridge({ logLinesPerPeer: 5 });
    const noisy = await rawClient(bridge.url);
    await refusedPushes(noisy, 500, 1);
    const noisyId = recordsOf(bridge, REFUSED)[0]!.fields.socket as number;
    expect(recordsOf(bridge, REFUSED, noisyId)).toHaveLength(5);
    // Another socket has its own budget.
    const quiet = await rawClient(bridge.url);
    await refusedPushes(quiet, 1, 1);
    expect(recordsOf(bridge, REFUSED)).toHaveLength(6);

    // The next window: the suppressed ones are summarized, and the socket may log again.
    bridge.clock.advance(bridge.core.config.logWindowMs);
    await refusedPushes(noisy, 10, 1000);
    expect(recordsOf(bridge, "log lines suppressed")).toEqual([
      { level: "warn", msg: "log lines suppressed", fields: { socket: noisyId, suppressed_msg: REFUSED, count: 495 } },
    ]);
    expect(recordsOf(bridge, REFUSED, noisyId)).toHaveLength(10);

    // Closing summarizes what this window suppressed.
    noisy.ws.close(1000);
    await until(() => recordsOf(bridge, "log lines suppressed").length === 2, "the summary at close");
    expect(recordsOf(bridge, "log lines suppressed")[1]!.fields).toEqual({
      socket: noisyId,
      suppressed_msg: REFUSED,
      count: 5,
    });
  });

  it("budgets refused upgrades per address", async () => {
    const bridge = await testBridge({ logLinesPerPeer: 3, maxAnonymousSocketsPerAddress: 1 });
    await rawClient(bridge.url);
    for (let i = 0; i < 30; i++) {
      await new Promise<void>((resolve) => {
        const ws = new WebSocket(`${bridge.url}/websocket?vsn=2.0.0`);
        cleanups.push(() => ws.terminate());
        ws.once("unexpected-response", () => resolve());
        ws.on("error", () => undefined);
      });
    }
    expect(bridge.core.metrics.socketsRefused).toBe(30);
    expect(recordsOf(bridge, "socket refused")).toHaveLength(3);
    bridge.clock.advance(bridge.core.config.logWindowMs);
    // Any record after a window's end sweeps the quiet peers' summaries out.
    bridge.core.log.info({}, "tick");
    expect(recordsOf(bridge, "log lines suppressed").map((record) => record.fields)).toEqual([
      { address: "127.0.0.1", suppressed_msg: "socket refused", count: 27 },
    ]);
  });
});
