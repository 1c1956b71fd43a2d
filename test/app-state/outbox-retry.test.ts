// The outbox in the running app when a send fails while the badge still says the server answers (docs/app.md
// "Outbox" OB11-OB13): it tries again by itself after a pause, with the same ids; a failure that says the server is
// off the bridge turns the badge to "Server offline", whose return sends the message; a send left unanswered is given
// up after 30 s; a reply whose completion a reset skipped holds its chat no longer. Once each: the server's stand-in
// records every send.
import { afterEach, describe, expect, it, vi } from "vitest";
import { NetworkError, ResponseError, ServerOfflineError, type AnyEvent } from "../../client/index.ts";
import { OUTBOX_RETRY_DELAYS_MS } from "../../app/src/offline/outbox-retry.ts";
import { OUTBOX_SEND_TIMEOUT_MS } from "../../app/src/offline/outbox-sender.ts";
import { fakeClient } from "../app-dom/support/fake-env.ts";
import { createChat } from "../../app/src/state/chat.ts";
import { nodeStore, type NodeStore } from "./support.ts";

/**
 * A server stand-in whose calls fail while `refusal` is set, and whose sends go unanswered while `silent` is (until
 * the caller aborts them); records each send's client_request_id.
 */
function flakyServer() {
  const listeners = new Set<(event: AnyEvent) => void>();
  const state: { refusal: Error | undefined; refusedChat?: string; silent: boolean; sends: string[] } = {
    refusal: undefined,
    silent: false,
    sends: [],
  };
  const resets = new Set<() => void>();
  const fake = fakeClient({
    on: (_type: never, listener: never) => (listeners.add(listener), () => listeners.delete(listener)),
    onReset: (listener: never) => (resets.add(listener), () => resets.delete(listener)),
    listAgents: async () => {
      if (state.refusal) throw state.refusal;
      return [];
    },
    listSessions: async () => {
      if (state.refusal) throw state.refusal;
      return [];
    },
    // The log of a request the outbox waits for: nothing has completed yet (the test says when, by an event).
    readEvents: async () => ({ events: [], next_since_id: "0", has_more: false, epoch: "e1" }),
    send: async (session: never, body: never) => {
      const { client_request_id, signal } = body as { client_request_id: string; signal?: AbortSignal };
      state.sends.push(client_request_id);
      if (state.refusal && (state.refusedChat === undefined || state.refusedChat === session)) throw state.refusal;
      if (state.silent)
        await new Promise((_answered, fail) =>
          signal?.addEventListener("abort", () => fail(new NetworkError("POST /sessions/s1/send: aborted"))),
        );
      return { request_id: `r-${state.sends.length}` };
    },
  });
  const complete = (request_id: string) =>
    listeners.forEach((listener) =>
      listener({ event_id: "1".padStart(20, "0"), type: "request_completed", session_id: "s1", request_id } as never),
    );
  /** The client's reset (an expired cursor): the events between are skipped. */
  const reset = () => resets.forEach((listener) => listener());
  return { fake, state, complete, reset };
}

let setup: NodeStore | undefined;
afterEach(() => {
  setup?.store.dispose();
  setup = undefined;
  vi.useRealTimers();
});

/** A started store, its badge Offline; unless `later`, its outbox holds one message for chat s1. */
async function storeWithWaiting(server: ReturnType<typeof flakyServer>, message: "now" | "later" = "now") {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  server.fake.status.set({ state: "offline" });
  setup = await nodeStore(server.fake);
  if (message === "now")
    await setup.store.outbox.add({ id: "crid-1", session_id: "s1", text: "written on the underground" });
  else await setup.store.outbox.load();
  // The outbox's code and its wiring load by dynamic import (lazy-outbox.ts, store.ts).
  await vi.dynamicImportSettled();
  return setup;
}

/**
 * Lets promise chains run until `check` passes, the fake clock standing still (vi.waitFor would move it on at every
 * try, and the pauses are what these tests measure).
 */
async function settled(check: () => void): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      return check();
    } catch (error) {
      if (tries === 200) throw error;
      await vi.advanceTimersByTimeAsync(0);
    }
  }
}

const states = ({ store }: NodeStore) => store.outbox.items.value.map((item) => item.state);

describe("the outbox's own retries", () => {
  it("a send refused as busy while the badge says Live goes again after a pause, with the same id, once (OB11)", async () => {
    const server = flakyServer();
    server.state.refusal = new ResponseError(503, "busy", undefined, "busy");
    const { store } = await storeWithWaiting(server);
    server.fake.status.set({ state: "live" });
    await settled(() => expect(server.state.sends).toEqual(["crid-1"]));
    await settled(() => expect(states(setup!)).toEqual(["waiting"]));
    expect(store.connection.badge.value).toBe("live");

    server.state.refusal = undefined;
    await vi.advanceTimersByTimeAsync(OUTBOX_RETRY_DELAYS_MS[0]! - 1);
    expect(server.state.sends).toEqual(["crid-1"]);
    await vi.advanceTimersByTimeAsync(1);
    await settled(() => expect(server.state.sends).toEqual(["crid-1", "crid-1"]));
    await settled(() => expect(states(setup!)).toEqual(["sending"]));
    server.complete("r-2");
    await settled(() => expect(store.outbox.items.value).toEqual([]));
    // Nothing is left to send: no later pause sends it again.
    await vi.advanceTimersByTimeAsync(OUTBOX_RETRY_DELAYS_MS.reduce((sum, pause) => sum + pause, 0));
    expect(server.state.sends).toEqual(["crid-1", "crid-1"]);
  });

  it("the pauses grow while the server keeps refusing, and start over when the badge turns Live again (OB11)", async () => {
    const server = flakyServer();
    server.state.refusal = new ResponseError(503, "busy", undefined, "busy");
    await storeWithWaiting(server);
    server.fake.status.set({ state: "live" });
    await settled(() => expect(server.state.sends).toHaveLength(1));
    for (const [index, pause] of OUTBOX_RETRY_DELAYS_MS.slice(0, 3).entries()) {
      await settled(() => expect(states(setup!)).toEqual(["waiting"]));
      await vi.advanceTimersByTimeAsync(pause - 1);
      expect(server.state.sends).toHaveLength(index + 1);
      await vi.advanceTimersByTimeAsync(1);
      await settled(() => expect(server.state.sends).toHaveLength(index + 2));
    }
    await settled(() => expect(states(setup!)).toEqual(["waiting"]));
    server.fake.status.set({ state: "polling" });
    await settled(() => expect(server.state.sends).toHaveLength(5));
    await settled(() => expect(states(setup!)).toEqual(["waiting"]));
    await vi.advanceTimersByTimeAsync(OUTBOX_RETRY_DELAYS_MS[0]!);
    await settled(() => expect(server.state.sends).toHaveLength(6));
    expect(new Set(server.state.sends)).toEqual(new Set(["crid-1"]));
  });

  it("a send refused because the server is off the bridge turns the badge to Server offline; its return sends the message (OB11)", async () => {
    const server = flakyServer();
    const { store } = await storeWithWaiting(server, "later");
    server.fake.status.set({ state: "live" });
    await settled(() => expect(store.connection.badge.value).toBe("live"));
    // The chat's list was read; then only the outbox's send learns that the server is off the bridge (a message added
    // while the badge says the server answers is sent at once: OB16).
    server.state.refusal = new ServerOfflineError("the server is not on the bridge");
    await store.outbox.add({ id: "crid-1", session_id: "s1", text: "written on the underground" });
    await settled(() => expect(server.state.sends).toEqual(["crid-1"]));
    await settled(() => expect(store.connection.badge.value).toBe("server_offline"));
    await settled(() => expect(states(setup!)).toEqual(["waiting"]));
    // Not retried on the outbox's own pauses while the badge says the server cannot be reached.
    await vi.advanceTimersByTimeAsync(OUTBOX_RETRY_DELAYS_MS[0]!);
    expect(server.state.sends).toEqual(["crid-1"]);

    server.state.refusal = undefined;
    // The app asks the server again 5 s after a call said it was off the bridge (connection.ts).
    await vi.advanceTimersByTimeAsync(5_000);
    await settled(() => expect(store.connection.badge.value).toBe("live"));
    await settled(() => expect(server.state.sends).toEqual(["crid-1", "crid-1"]));
    server.complete("r-2");
    await settled(() => expect(store.outbox.items.value).toEqual([]));
  });

  it("a send left unanswered is given up after 30 s and tried again with the same id, so it holds nothing (OB12)", async () => {
    const server = flakyServer();
    server.state.silent = true;
    const { store } = await storeWithWaiting(server);
    server.fake.status.set({ state: "live" });
    await settled(() => expect(server.state.sends).toEqual(["crid-1"]));
    await vi.advanceTimersByTimeAsync(OUTBOX_SEND_TIMEOUT_MS - 1);
    expect(states(setup!)).toEqual(["sending"]);
    server.state.silent = false;
    await vi.advanceTimersByTimeAsync(1);
    await settled(() => expect(states(setup!)).toEqual(["waiting"]));
    await vi.advanceTimersByTimeAsync(OUTBOX_RETRY_DELAYS_MS[0]!);
    await settled(() => expect(server.state.sends).toEqual(["crid-1", "crid-1"]));
    server.complete("r-2");
    await settled(() => expect(store.outbox.items.value).toEqual([]));
  });

  it("a reply whose completion fell in a reset's gap holds its chat no longer: the next message goes (OB13)", async () => {
    const server = flakyServer();
    const { store } = await storeWithWaiting(server);
    await store.outbox.add({ id: "crid-2", session_id: "s1", text: "and then this" });
    server.fake.status.set({ state: "live" });
    await settled(() => expect(server.state.sends).toEqual(["crid-1"]));
    await settled(() => expect(states(setup!)).toEqual(["sending", "waiting"]));
    // The first reply completes while the client is away; its cursor expired, the client resets.
    server.reset();
    await settled(() => expect(server.state.sends).toEqual(["crid-1", "crid-2"]));
    server.complete("r-2");
    await settled(() => expect(store.outbox.items.value).toEqual([]));
  });

  it("a chat refused as busy is tried again on its pause while another chat still waits for its reply (OB11)", async () => {
    const server = flakyServer();
    const { store } = await storeWithWaiting(server);
    await store.outbox.add({ id: "crid-t", session_id: "t1", text: "in another chat" });
    server.state.refusal = new ResponseError(503, "busy", undefined, "busy");
    server.state.refusedChat = "t1";
    server.fake.status.set({ state: "live" });
    await settled(() => expect(server.state.sends).toEqual(["crid-1", "crid-t"]));
    await settled(() => expect(states(setup!)).toEqual(["sending", "waiting"]));
    server.state.refusal = undefined;
    // crid-1's reply is still being written: the other chat does not wait for it.
    await vi.advanceTimersByTimeAsync(OUTBOX_RETRY_DELAYS_MS[0]!);
    await settled(() => expect(server.state.sends).toEqual(["crid-1", "crid-t", "crid-t"]));
    server.complete("r-3");
    server.complete("r-1");
    await settled(() => expect(store.outbox.items.value).toEqual([]));
  });
  it("a message written in a chat while an earlier one of it waits in the outbox goes after that one, also with the badge Live (OB16)", async () => {
    const server = flakyServer();
    server.state.refusal = new ResponseError(503, "busy", undefined, "busy");
    const { store } = await storeWithWaiting(server);
    server.fake.status.set({ state: "live" });
    await settled(() => expect(server.state.sends).toEqual(["crid-1"]));
    await settled(() => expect(states(setup!)).toEqual(["waiting"]));
    server.state.refusal = undefined;
    // Written now, with the badge Live: it joins the chat's outbox behind the waiting one, which goes at once.
    const chat = createChat(store, "s1");
    chat.draft.setText("written after it");
    expect(await chat.draft.submit()).toBe(true);
    await settled(() => expect(server.state.sends).toEqual(["crid-1", "crid-1"]));
    await settled(() => expect(states(setup!)).toEqual(["sending", "waiting"]));
    server.complete("r-2");
    await settled(() => expect(server.state.sends).toHaveLength(3));
    const written = store.outbox.items.value[0]!;
    expect([written.text, server.state.sends[2]]).toEqual(["written after it", written.id]);
    server.complete("r-3");
    await settled(() => expect(store.outbox.items.value).toEqual([]));
  });
});
