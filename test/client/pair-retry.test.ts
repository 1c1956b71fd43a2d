// pair() keeps retrying `server_unavailable` for 10 s by default (docs/client.md "Pair", C161): a code whose server
// has not linked to the bridge yet (a bridge just restarted, a server still starting) is not a failure until then.
// Time is the injected clock: each retry is released by moving it, after the bridge has answered the attempt before.
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { pair, PairingError, PAIR_RETRY_FOR_MS } from "../../client/connection/pair.ts";
import type { WebSocketConstructor } from "../../client/transport/bridge.ts";
import { ManualTimers } from "../../client/util/timers.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { fakeServer, runCleanups, testBridge, until } from "../bridge/helpers.ts";

afterEach(runCleanups);

const CODE = "AAAAABBBBB";

describe("pair() and a server that is not linked to the bridge (C161)", () => {
  it("retries server_unavailable for 10 s of injected time, then gives it as the answer", async () => {
    expect(PAIR_RETRY_FOR_MS).toBe(10_000);
    const bridge = await testBridge();
    const server = await fakeServer(bridge.url, {
      codes: [{ code_hash: sha256Hex(CODE), expires_at: bridge.clock.now() + 600_000 }],
    });
    server.socket.disconnect();
    await until(() => bridge.core.registry.connectedServers === 0, "the server's link ended");
    const answered = () =>
      bridge.log.records.filter((record) => record.msg === "pairing code for a server not joined yet").length;

    const timers = new ManualTimers();
    const start = timers.now();
    let outcome: unknown;
    pair({
      bridgeUrl: bridge.url,
      code: CODE,
      deviceName: "phone",
      e2e: false,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      timers,
      retryDelaysMs: [1000],
    }).then(
      (credentials) => (outcome = credentials),
      (error: unknown) => (outcome = error),
    );
    // Attempts at 0, 1, … 9 s are answered and retried; the one at 10 s is the last.
    for (let attempt = 1; attempt <= 10; attempt++) {
      // The bridge logs its answer before the client has read it: wait for the retry the client sets on reading it.
      await until(
        () => answered() === attempt && timers.pending === 1,
        `attempt ${attempt} answered and its retry set`,
      );
      expect(outcome, `still pairing ${timers.now() - start} ms in`).toBeUndefined();
      timers.advance(1000);
    }
    await until(() => outcome !== undefined, "the answer");
    expect(outcome).toEqual(new PairingError("server_unavailable"));
    expect(answered()).toBe(11);
    expect(timers.now() - start).toBe(PAIR_RETRY_FOR_MS);
  });
});
