// A pairing code taken twice at once on one bridge node (docs/bridge.md "Pairing and devices"): two apps type the
// same code, and both are past finding it before either takes it. The code is taken once: one pairs, the other is
// refused `invalid_code`, and the server is asked once, even a server that would say yes twice.
import { afterEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { fakeServer, runCleanups, testBridge, until, answerPairings, codeOnBridge } from "./helpers.ts";
import { holdBeforeTaking, pairFrom } from "./code-race.ts";
import { serverPeer, pairingCode } from "./server-peer.ts";

afterEach(runCleanups);

/** Two joins with `code` from two addresses, both held past the lookup, then let go one after the other. */
async function twoAtOnce(bridge: Awaited<ReturnType<typeof testBridge>>, code: string): Promise<string[]> {
  const held = holdBeforeTaking(bridge);
  const answers = Promise.all([pairFrom(bridge.url, "127.0.0.2", code), pairFrom(bridge.url, "127.0.0.3", code)]);
  await until(() => held.length === 2, "both attempts found the code");
  for (const go of held.splice(0)) {
    go();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return (await answers).sort();
}

describe("one pairing code, two apps at once", () => {
  it("forwards one attempt only, to a server that would pair both", async () => {
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url, {
      codes: [{ code_hash: sha256Hex("AAAAABBBBB"), expires_at: bridge.clock.now() + 600_000 }],
    });
    let made = 0;
    answerPairings(server, () => `dev_${++made}`);
    expect(await twoAtOnce(bridge, "AAAAABBBBB")).toEqual(["invalid_code", "ok"]);
    expect(server.pairRequests).toHaveLength(1);
    // The failed one is counted against its address like any wrong code.
    expect(bridge.core.metrics.pairingFailures).toBe(1);
  });

  it("makes one device on a real server", async () => {
    const bridge = await testBridge();
    const peer = await serverPeer(bridge.url);
    const code = await pairingCode(peer);
    await codeOnBridge(bridge, code, "code on the bridge");
    expect(await twoAtOnce(bridge, code)).toEqual(["invalid_code", "ok"]);
    expect(peer.server.runtime.ctx.pairing.listDevices()).toHaveLength(1);
  });
});
