// docs/client.md "Route choice" C100: in a browser a failed fetch is a bare TypeError, with no error code to say the
// connection was refused before anything was sent. After `directProbeMs` on the relay, server_url is probed again only
// by a call that is safe to repeat (a read, a send): an action (create, cancel, dismiss, upload) keeps to the relay
// until direct HTTP has answered, instead of being tried on server_url and failing.
import { afterEach, describe, expect, it } from "vitest";
import { connect } from "../../client/index.ts";
import { systemTimers } from "../../client/util/timers.ts";
import { runCleanups, until } from "../bridge/helpers.ts";
import { NodeWebSocket } from "../client/support/stack.ts";
import { closedPort, pairDevice, relayStack } from "./stack.ts";

afterEach(runCleanups);

/** fetch as a browser fails it: a TypeError with no cause (no ECONNREFUSED to read). */
function browserLikeFetch(calls: string[]): typeof fetch {
  return async (input, init) => {
    calls.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname}`);
    try {
      return await fetch(input, init);
    } catch {
      throw new TypeError("Failed to fetch");
    }
  };
}

describe("route choice in a browser (C100)", () => {
  it("probes server_url again only with a call that is safe to repeat; actions stay on the relay meanwhile", async () => {
    const stack = await relayStack();
    const credentials = await pairDevice(stack, `http://127.0.0.1:${await closedPort()}`);
    let now = Date.now();
    const direct: string[] = [];
    const client = connect(credentials, {
      WebSocket: NodeWebSocket,
      reconnectAfterMs: () => 20,
      retryDelaysMs: [20],
      fetch: browserLikeFetch(direct),
      timers: { ...systemTimers, now: () => now },
      directProbeMs: 60_000,
    });
    await until(() => client.status.get().state === "live", "live through the bridge");
    await client.listSessions(); // direct fails, the read is repeated over the relay
    expect(direct.length).toBeGreaterThan(0);

    now += 60_000; // the probe time has passed: server_url may be tried again
    direct.length = 0;
    // The content key's fetch (GET /e2e/keys, a read) may probe too, whenever an event needs it: not what is tested.
    const calls = () => direct.filter((call) => call !== "GET /e2e/keys");
    const created = await client.createSession(); // an action: not a probe, straight over the relay
    expect(calls()).toEqual([]);
    await client.listSessions(); // a read probes server_url, fails, and is answered over the relay
    expect(calls()).toEqual(["GET /sessions"]);
    await client.updateSession(created.id, { title: "still relayed" });
    expect(calls()).toEqual(["GET /sessions"]);
    expect((await client.listSessions()).filter((s) => s.id === created.id)).toHaveLength(1);
    client.close();
  });
});
