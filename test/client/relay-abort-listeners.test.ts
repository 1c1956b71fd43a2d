// A relayed call leaves nothing on the caller's signal (docs/client.md C177): the poll loop and the sequencer's repairs
// pass one signal to many calls in turn, so each call removes its abort listener when it ends, also when the push
// itself fails (a sealed push whose crypto could not load rejects instead of answering).
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PushWaiter, RelayApi, type RelayChannel } from "../../client/transport/relay.ts";
import { systemTimers } from "../../client/util/timers.ts";

describe("a relayed call's abort listener", () => {
  it("is removed when the call ends, whether the push answered or failed (C177)", async () => {
    const shared = new AbortController();
    let failing = false;
    const channel: RelayChannel = {
      push: async () => {
        if (failing) throw new Error("the sealed relay's crypto could not load");
        return { status: "ok", response: { status: 200, body: { ok: true } } };
      },
    };
    const relay = new RelayApi(channel, new PushWaiter(systemTimers));
    const call = () => relay.request("GET", "/health", z.object({ ok: z.boolean() }), { signal: shared.signal });
    for (let i = 0; i < 3; i++) await expect(call()).resolves.toEqual({ ok: true });
    failing = true;
    for (let i = 0; i < 12; i++) await expect(call()).rejects.toThrow("could not load");
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
  });
});
