// The route to the bridge when WebSockets are blocked (issue 14, docs/client.md "Fallback order", C72): the library
// falls back to Phoenix's long-poll on the bridge and is live there, before (and instead of staying on) the server's
// HTTP polling; events arrive over it.
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { connect } from "../../client/connection/client.ts";
import type { WebSocketConstructor } from "../../client/transport/bridge.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { AdminClient } from "../../client/index.ts";
import { ADMIN_TOKEN } from "../support/server.ts";
import { FAST_RECONNECT, until, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

/** A WebSocket a proxy refuses: the upgrade never succeeds (it dials a closed port and errors at once). */
class BlockedWebSocket extends WebSocket {
  constructor(url: string, protocols?: string | string[]) {
    super(url.replace(/:\d+\//, ":1/"), protocols);
  }
}

/** A client whose WebSockets are all refused, so it must go live over the long-poll. */
const overLongPoll = (credentials: Parameters<typeof connect>[0]) =>
  connect(credentials, {
    ...FAST_RECONNECT,
    WebSocket: BlockedWebSocket as unknown as WebSocketConstructor,
    pollWaitMs: 1000,
  });

describe("WebSockets blocked", () => {
  it("goes live over the bridge's long-poll and receives events there (C72)", async () => {
    const stack = await scope.start({ longPollWindowMs: 500 });
    const credentials = await stack.pair();
    const client = scope.own(overLongPoll(credentials));
    const heard: AnyEvent[] = [];
    client.on("*", (event) => heard.push(event));
    await untilLive(client);
    expect(stack.bridge!.longPoll.size).toBe(1);
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "over long-poll");
    await until(
      () => heard.some((event) => event.type === "message_appended"),
      "the event over the bridge's long-poll",
    );
    expect(client.status.get().state).toBe("live");
  });
});

describe("a device revoked while it long-polls the bridge", () => {
  it("stops with revoked and leaves no session on the bridge (C75)", async () => {
    const stack = await scope.start({ longPollWindowMs: 500 });
    const credentials = await stack.pair();
    const client = scope.own(overLongPoll(credentials));
    await untilLive(client);
    await new AdminClient({ serverUrl: stack.serverUrl, adminToken: ADMIN_TOKEN }).revokeDevice(credentials.device_id);
    await until(() => client!.status.get().state === "stopped", "stopped");
    expect(client.status.get()).toEqual({ state: "stopped", reason: "revoked" });
    await until(() => stack!.bridge!.longPoll.size === 0, "no session left for the revoked device");
  });
});
