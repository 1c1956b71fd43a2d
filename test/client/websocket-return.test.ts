// Back to the WebSocket after a bridge outage (docs/client.md "Transport choice", C160): a real bridge process is
// killed (SIGKILL) and started again on the same port; the first reconnect that succeeds is a WebSocket, and the
// pushes after the restart arrive over it (counted by a tapped `ws`), every event once, in order. Before the fix
// phoenix's `longPollFallbackMs` had moved the socket to long-poll for good on the first refused reconnect: 0 pushes
// over any WebSocket after the restart.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { BRIDGE_START_MS, ProcessBridgeStack, tappedWebSocket, type Tap } from "./support/bridge-process.ts";
import { until, untilLive } from "./support/stack.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

const TEST_MS = 4 * BRIDGE_START_MS;

describe("a bridge killed and restarted on the same port", () => {
  it(
    "is reconnected over a WebSocket that receives the pushes after the restart (C160)",
    { timeout: TEST_MS },
    async () => {
      const stack = closing.own(await ProcessBridgeStack.startWithProcess());
      const credentials = await stack.pair();
      const tap: Tap = { sockets: [] };
      // The library's own reconnect schedule and transport choice; only HTTP retries are shortened.
      const client = closing.own(
        connect(credentials, { WebSocket: tappedWebSocket(tap), retryDelaysMs: [20], pollWaitMs: 1000 }),
      );
      const heard: AnyEvent[] = [];
      client.on("*", (event) => heard.push(event));
      const problems: string[] = [];
      client.onProblem((problem) => problems.push(problem.message));
      await untilLive(client);
      const start = client.cursor!;
      const sessionId = await stack.createSession();
      await stack.append(sessionId, "before the kill");
      await until(() => heard.some((event) => event.type === "message_appended"), "the first event");

      await stack.stopBridge();
      const socketsBeforeRestart = tap.sockets.length;
      await until(() => client!.status.get().state === "polling", "polling while the bridge is down");
      await stack.append(sessionId, "while the bridge is down");
      await stack.startBridge();
      await until(() => client!.status.get().state === "live", "live again", BRIDGE_START_MS);

      for (let i = 0; i < 3; i++) await stack.append(sessionId, `after the restart ${i}`);
      const expected = (await stack.storeEvents())
        .filter((event) => event.event_id > start)
        .map((event) => event.event_id);
      await until(() => heard.length >= expected.length, `all ${expected.length} events`);
      expect(heard.map((event) => event.event_id)).toEqual(expected);
      // The attempts while the bridge was down were refused; the first that opened is the one the pushes came over.
      const afterKill = tap.sockets.slice(socketsBeforeRestart);
      const firstOpened = afterKill.find((socket) => socket.opened);
      expect(firstOpened?.pushes).toBeGreaterThan(0);
      expect(afterKill.filter((socket) => socket.opened)).toHaveLength(1);
      expect(problems.filter((message) => message.includes("long-poll"))).toEqual([]);
    },
  );
});
