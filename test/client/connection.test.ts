// The client against a real server and bridge on 127.0.0.1: pairing, live delivery, HTTP fallback, snapshots and
// the notification rail. Fault cases are in faults.test.ts.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import { pair, PairingError } from "../../client/connection/pair.ts";
import { isEvent } from "../../client/events/narrow.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { FAST_RECONNECT, liveClient, NodeWebSocket, until, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

describe("client with a real server and bridge", () => {
  it("pairs, goes live and delivers every event once, in order (C1, C2, C5)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const { client, seen } = await liveClient(scope, credentials);
    const start = client.cursor!;
    const sessionId = await stack.createSession();
    for (let i = 0; i < 5; i++) await stack.append(sessionId, `m${i}`);
    const expected = (await stack.storeEvents()).filter((event) => event.event_id > start);
    await until(() => seen.length >= expected.length, "all events");
    expect(seen.map((event) => event.event_id)).toEqual(expected.map((event) => event.event_id));
  });

  it("refuses a wrong code with its reason, and leaves the pairing channel (C10)", async () => {
    const stack = await scope.start();
    const metrics = stack.bridge!.core.metrics;
    await until(() => metrics.socketsOpen === 1, "the server's own socket");
    const error = await pair({
      bridgeUrl: stack.bridgeUrl,
      code: "AAAAA-AAAAA",
      deviceName: "x",
      WebSocket: NodeWebSocket,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PairingError);
    expect((error as PairingError).reason).toBe("invalid_code");
    // No rejoin keeps a pairing channel alive on the bridge after the refusal.
    await until(() => metrics.socketsOpen === 1 && metrics.socketsTotal === 2, "pairing socket closed");
  });

  it("long-polls over HTTP when the bridge is unreachable (C3)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    await stack.stopBridge();
    const client = scope.own(connect(credentials, FAST_RECONNECT));
    const seen: string[] = [];
    client.on("message_appended", (event) => seen.push(event.content));
    await until(() => client!.status.get().state === "polling", "polling");
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "over http");
    await until(() => seen.length === 1, "event over the long-poll");
    expect(seen).toEqual(["over http"]);
  });

  it("narrows events only when they match their schema (C6)", () => {
    const good = {
      event_id: "00000000000000000001",
      type: "partial",
      session_id: "s",
      request_id: "r",
      message: { role: "assistant", content: "hi" },
    };
    const bad = { ...good, message: { role: "assistant" } };
    expect(isEvent(good, "partial")).toBe(true);
    expect(isEvent(bad, "partial")).toBe(false);
    expect(isEvent(good, "final")).toBe(false);
  });

  it("loads messages with their cursor and continues from it without repeating an effect (C7)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const client = scope.own(connect(credentials, FAST_RECONNECT));
    await untilLive(client);
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "one");
    await until(() => client!.cursor === stack!.latestId(), "caught up");
    const heard: AnyEvent[] = [];
    const loaded = await client.loadMessages(sessionId, (event) => heard.push(event));
    expect(loaded.messages.map((m) => m.content)).toEqual(["one"]);
    expect(loaded.cursor_event_id).toBe(stack.latestId());
    expect(loaded.events).toEqual([]);
    await stack.append(sessionId, "two");
    await until(() => heard.some((event) => isEvent(event, "message_appended")), "the next append");
    expect(
      heard
        .filter((event) => isEvent(event, "message_appended"))
        .map((event) => (event as { content: string }).content),
    ).toEqual(["two"]);
    loaded.dispose();
  });

  it("walks the chat list in pages along the server's cursor: every chat once, then next_before null", async () => {
    const stack = await scope.start();
    const client = scope.own(connect(await stack.pair(), FAST_RECONNECT));
    const ids = [await stack.createSession(), await stack.createSession(), await stack.createSession()];
    const walked: string[] = [];
    let page = await client.listSessionsPage({ limit: 2 });
    walked.push(...page.sessions.map((s) => s.id));
    expect(page.sessions).toHaveLength(2);
    while (page.next_before !== null) {
      page = await client.listSessionsPage({ limit: 2, before: page.next_before });
      walked.push(...page.sessions.map((s) => s.id));
    }
    expect(walked.sort()).toEqual([...ids].sort());
  });

  it("presents application notifications from the connect snapshot and from events, and dismisses (C8)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    stack.notifyApplication({
      key: "before",
      severity: "info",
      title: "Before connect",
      display: { presentation: "banner" },
    });
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, mode: "desktop" }));
    await until(() => client!.notifications.application.get().length === 1, "snapshot on connect");
    stack.notifyApplication({
      key: "after",
      severity: "warning",
      title: "After connect",
      display: { presentation: "modal" },
    });
    await until(() => client!.notifications.application.get().length === 2, "event upsert");
    const [first, second] = client.notifications.application.get();
    expect(second!.decision).toEqual({ presented: true, presentation: "inline", normalized: true });
    const result = await client.notifications.dismiss(first!);
    expect(result.status).toBe("dismissed");
    expect(client.notifications.application.get().map((item) => item.record.title)).toEqual(["After connect"]);
    const server = await stack.server.request({
      method: "GET",
      url: "/application/notifications?include_terminal=true",
    });
    expect((server.json as Array<{ key: string; status: string }>).find((n) => n.key === "before")?.status).toBe(
      "dismissed",
    );
  });
});
