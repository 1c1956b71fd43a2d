// Which transport reaches the bridge (docs/client.md "Transport choice", C166, C167): long-poll only when WebSocket
// attempts fail (refused, or held without opening) while the bridge's long-poll endpoint answers; and while on
// long-poll, a WebSocket is tried every 60 s of injected time and taken back as soon as one opens. A real bridge
// and server; the WebSocket is `ws`, pointed elsewhere while "blocked".
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect } from "../../client/connection/client.ts";
import type { WebSocketConstructor } from "../../client/transport/bridge.ts";
import { DEFAULT_OPEN_TIMEOUT_MS, DEFAULT_RETRY_WEBSOCKET_MS } from "../../client/transport/transport-choice.ts";
import { ManualTimers } from "../../client/util/timers.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { FAST_RECONNECT, until, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

/** Where a "blocked" WebSocket goes instead of the bridge, and what every WebSocket received. */
interface Route {
  blockedTo: string | undefined;
  opened: number;
  pushes: number;
}

function routedWebSocket(route: Route): WebSocketConstructor {
  class RoutedWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(route.blockedTo ? url.replace(/\/\/[^/]+\//, `//${route.blockedTo}/`) : url, protocols);
      this.on("open", () => route.opened++);
      this.on("message", (data) => {
        if (/^\[[^\]]*?"(session_event|sealed_event)"/.test(String(data))) route.pushes++;
      });
    }
  }
  return RoutedWebSocket as unknown as WebSocketConstructor;
}

/** Moves the injected timers by `ms` in 250 ms steps, letting real I/O run between steps. */
async function advance(timers: ManualTimers, ms: number): Promise<void> {
  for (let moved = 0; moved < ms; moved += 250) {
    timers.advance(250);
    // The bridge answers long-polls on its own real clock: each step gives them a moment, as the app's would get.
    await realMoment(2);
  }
}

/** Real time passing, for the bridge's real clock (the client's timers are injected). */
const realMoment = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Lets real time pass until `check` holds (at most 1,000 steps of 20 ms), moving the injected timers 25 ms a step
 * beside it, 25 s in all: what follows a decision (the long-poll's first request, a reconnect's delay) may be timed on
 * the injected clock after an `advance` has ended, and a loaded machine gets there later than a quiet one.
 */
async function advanceUntil(timers: ManualTimers, check: () => boolean, what: string): Promise<void> {
  for (let step = 0; !check(); step++) {
    if (step >= 1000) throw new Error(`timed out waiting for: ${what}`);
    timers.advance(25);
    await realMoment(20);
  }
}

async function started(route: Route, timers: ManualTimers) {
  const stack = await scope.start({ longPollWindowMs: 500 });
  const credentials = await stack.pair();
  const client = scope.own(
    connect(credentials, { ...FAST_RECONNECT, WebSocket: routedWebSocket(route), timers, pollWaitMs: 1000 }),
  );
  const heard: AnyEvent[] = [];
  client.on("*", (event) => heard.push(event));
  return { stack, client, heard };
}

describe("while on the bridge's long-poll (C166)", () => {
  it(
    "tries a WebSocket every 60 s and moves back to it once one opens; the pushes then come over it",
    { timeout: 60_000 },
    async () => {
      expect(DEFAULT_RETRY_WEBSOCKET_MS).toBe(60_000);
      const route: Route = { blockedTo: "127.0.0.1:1", opened: 0, pushes: 0 };
      const timers = new ManualTimers();
      const { stack, client, heard } = await started(route, timers);
      await untilLive(client);
      expect(stack.bridge!.longPoll.size).toBe(1);

      // WebSockets pass again; nothing changes before the minute is up.
      route.blockedTo = undefined;
      await advance(timers, DEFAULT_RETRY_WEBSOCKET_MS - 1000);
      expect([route.opened, stack.bridge!.longPoll.size]).toEqual([0, 1]);

      await advance(timers, 1000);
      // The WebSocket tried (closed at once) and the socket's own: live over it.
      await until(() => route.opened >= 2 && client.status.get().state === "live", "live over a WebSocket");
      const sessionId = await stack.createSession();
      await stack.append(sessionId, "over the WebSocket");
      await until(() => heard.some((event) => event.type === "message_appended"), "the event");
      expect(route.pushes).toBeGreaterThan(0);
    },
  );
});

describe("an upgrade held without an answer (C167)", () => {
  it(
    "counts as refused after the open timeout while the long-poll answers, and the client goes live over long-poll",
    { timeout: 60_000 },
    async () => {
      // A proxy that takes the connection and never answers the upgrade.
      // Closed after the test with the sockets it holds.
      const held: Socket[] = [];
      const holder = createServer((socket) => void held.push(socket));
      scope.onClose(() => new Promise<void>((resolve) => holder.close(() => resolve())));
      scope.onClose(() => held.forEach((socket) => socket.destroy()));
      await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
      const route: Route = { blockedTo: `127.0.0.1:${(holder.address() as AddressInfo).port}`, opened: 0, pushes: 0 };
      const timers = new ManualTimers();
      const { stack, client } = await started(route, timers);
      await until(() => held.length === 1, "the first upgrade held");
      // Two held attempts, each given up after the open timeout, the long-poll endpoint answering each time.
      for (let attempt = 1; attempt <= 2; attempt++) {
        await until(() => held.length === attempt, `attempt ${attempt} held`);
        expect(stack.bridge!.longPoll.size).toBe(0);
        await advance(timers, DEFAULT_OPEN_TIMEOUT_MS);
      }
      // Short of the minute after which a WebSocket is tried again, so none is.
      await advanceUntil(timers, () => client.status.get().state === "live", "live over long-poll");
      expect([route.opened, stack.bridge!.longPoll.size]).toEqual([0, 1]);
    },
  );
});
