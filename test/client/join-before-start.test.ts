// A bridge join acknowledged before the client's connection machine has started (docs/client.md C174). With a cursor
// store (or end-to-end crypto) the start waits for the saved cursor (or the crypto) to load; a server call made
// meanwhile that goes through the bridge's relay connects the socket and joins the events channel first. That join
// is remembered and trusted once the start's catch-up reaches the head, so the client goes live. (It used to be
// dropped: the client then waited in "joining" for a join that had already happened, with nothing delivered live
// until the socket next dropped; the companion app's outbox waited with it, docs/app.md OB10.) Real server and
// bridge on 127.0.0.1; the cursor store's load is held by the test, so the order is fixed, not timed.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import { initialSnapshot, transition, type Snapshot } from "../../client/connection/machine.ts";
import type { CursorStore } from "../../client/connection/cursor-keeper.ts";
import { ServerOfflineError } from "../../client/transport/errors.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { FAST_RECONNECT, markerHeard, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

/** A cursor store with nothing saved whose load answers only when the test says so. */
function heldCursorStore() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const store: CursorStore = {
    load: async () => held.then(() => undefined),
    save: async () => undefined,
    forget: async () => undefined,
  };
  return { store, release };
}

describe("a bridge join acknowledged before the client started", () => {
  it("is remembered by the machine in idle, so the start's catch-up ends live, trusting it", () => {
    const steps: Snapshot[] = [initialSnapshot];
    const step = (input: Parameters<typeof transition>[1]) => {
      const next = transition(steps.at(-1)!, input);
      steps.push(next);
      return next;
    };
    expect(step({ type: "bridge_joined", replay: "gap", serverOnline: true })).toMatchObject({
      state: "idle",
      effects: [],
      context: { bridgeJoined: true, bridgeDown: false, server: { online: true } },
    });
    expect(step({ type: "start" }).state).toBe("catching_up");
    expect(step({ type: "caught_up" })).toMatchObject({ state: "live", effects: [{ type: "trust_bridge" }] });
  });

  it("said the server was offline: its return (server_status) starts the catch-up at once, not at the next retry", () => {
    let snapshot: Snapshot = transition(initialSnapshot, { type: "bridge_joined", replay: "gap", serverOnline: false });
    snapshot = transition(transition(snapshot, { type: "start" }), { type: "http_failed" });
    expect(snapshot.state).toBe("offline");
    const back = transition(snapshot, { type: "server_status", online: true });
    expect(back.state).toBe("catching_up");
    expect(back.effects.map((effect) => effect.type)).toEqual(["cancel_retry", "reload_snapshots", "catch_up"]);
    expect(transition(back, { type: "caught_up" }).state).toBe("live");
  });

  it("is trusted after the start's catch-up: the client goes live and hears new events over the bridge", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const cursor = heldCursorStore();
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, route: "relay", cursorStore: cursor.store }));
    const heard: AnyEvent[] = [];
    client.on("*", (event) => heard.push(event));
    // Answered through the relay, so after the channel's join: the join came while the machine waited for the load.
    await client.listAgents();
    expect(client.status.get().state).toBe("catching_up");

    cursor.release();
    await untilLive(client);
    await markerHeard(stack, heard, "after-early-join");
  });

  it("made while the server was offline: when the server is back, the client goes live without waiting for the socket to drop", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    await stack.stopServer();
    const cursor = heldCursorStore();
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, cursorStore: cursor.store }));
    const heard: AnyEvent[] = [];
    client.on("*", (event) => heard.push(event));
    // server_url refuses, the relay answers that the server is not on the bridge: the join said so first.
    await expect(client.listAgents()).rejects.toBeInstanceOf(ServerOfflineError);

    cursor.release();
    await stack.startServer();
    await untilLive(client);
    await markerHeard(stack, heard, "after-server-back");
  });
});
