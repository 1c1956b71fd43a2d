// docs/client.md "Route choice" C60-C62: the client library with server_url unreachable does everything through the
// bridge's API relay (sessions, send with streaming, cancel, attachments, notifications and dismissal), and in `auto`
// it switches from direct HTTP to the relay and back without losing an event or running a send twice.
import { afterEach, describe, expect, it } from "vitest";
import { connect, type ChatClient } from "../../client/index.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { systemTimers } from "../../client/util/timers.ts";
import { parseProducer, producerInputSchema } from "../../server/notifications/input.ts";
import { runCleanups, until } from "../bridge/helpers.ts";
import { NodeWebSocket } from "../client/support/stack.ts";
import { CuttableProxy } from "../client/support/proxy.ts";
import { closedPort, pairDevice, relayStack, type RelayStack } from "./stack.ts";

afterEach(runCleanups);

const PNG = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    "base64",
  ),
);
const FAST = { WebSocket: NodeWebSocket, reconnectAfterMs: () => 20, retryDelaysMs: [20] };

function track(client: ChatClient): AnyEvent[] {
  const heard: AnyEvent[] = [];
  client.on("*", (event) => void heard.push(event));
  return heard;
}

function startClient(
  credentials: Parameters<typeof connect>[0],
  options: Parameters<typeof connect>[1] = {},
): ChatClient {
  const client = connect(credentials, { ...FAST, ...options });
  return client;
}

function notify(stack: RelayStack, key: string) {
  return stack.server.runtime.ctx.notifications.application.publish(
    parseProducer(producerInputSchema, { key, severity: "info", title: key, display: { presentation: "banner" } }),
    "test",
  );
}

describe("the client library through the relay", () => {
  it("does everything with server_url a closed port (C60)", async () => {
    const stack = await relayStack();
    const credentials = await pairDevice(stack, `http://127.0.0.1:${await closedPort()}`);
    notify(stack, "before");
    const client = startClient(credentials, { mode: "desktop" });
    const heard = track(client);
    await until(() => client.status.get().state === "live", "live through the bridge");
    await until(() => client.notifications.application.get().length === 1, "notification snapshot over the relay");

    const session = await client.createSession();
    expect((await client.listSessions()).map((s) => s.id)).toContain(session.id);
    await client.updateSession(session.id, { title: "Relayed" });
    expect((await client.getSession(session.id)).title).toBe("Relayed");

    stack.backend.script({
      kind: "stream",
      parts: ["Hel", "lo"].map((content) => ({ data: { choices: [{ index: 0, delta: { content } }] } })),
    });
    const sent = await client.send(session.id, { content: "hi" });
    await until(
      () => heard.some((e) => e.type === "request_completed" && e.request_id === sent.request_id),
      "streamed reply completed",
    );
    expect(heard.filter((e) => e.request_id === sent.request_id).map((e) => e.type)).toContain("partial");
    const loaded = await client.loadMessages(session.id);
    expect(loaded.messages.map((m) => m.content)).toEqual(["hi", "Hello"]);

    stack.backend.script({
      kind: "stream",
      parts: [{ data: { choices: [{ index: 0, delta: { content: "x" } }] } }],
      pauseAfter: 1,
    });
    const long = await client.send(session.id, { content: "long answer please" });
    await stack.backend.nextPause();
    await client.cancel(session.id, long.request_id);
    await until(
      () => heard.some((e) => e.type === "request_cancelled" && e.request_id === long.request_id),
      "cancelled",
    );

    const stored = await client.storeAttachment(session.id, { bytes: PNG, filename: "dot.png" });
    const downloaded = await client.downloadAttachment(session.id, stored.asset_id);
    expect(downloaded.media_type).toBe("image/png");
    expect(Buffer.from(downloaded.bytes).equals(Buffer.from(PNG))).toBe(true);
    await client.deleteAttachment(session.id, stored.asset_id);

    notify(stack, "after");
    await until(() => client.notifications.application.get().length === 2, "notification event");
    const result = await client.notifications.dismiss(client.notifications.application.get()[0]!);
    expect(result.status).toBe("dismissed");
    const listed = await stack.server.request({
      method: "GET",
      url: "/application/notifications?include_terminal=true",
    });
    expect((listed.json as Array<{ key: string; status: string }>).find((n) => n.key === "before")?.status).toBe(
      "dismissed",
    );
    // Every event once, in store order.
    const ids = heard.map((e) => e.event_id);
    expect(ids).toEqual([...new Set(ids)].sort());
    client.close();
  });

  it("switches from direct HTTP to the relay and back, losing no event and running no send twice (C61)", async () => {
    const stack = await relayStack();
    const proxy = await CuttableProxy.start(() => Number(new URL(stack.serverUrl).port));
    let now = Date.now();
    const problems: string[] = [];
    const credentials = await pairDevice(stack, `http://127.0.0.1:${proxy.port}`);
    const client = startClient(credentials, { timers: { ...systemTimers, now: () => now }, directProbeMs: 60_000 });
    client.onProblem((p) => void problems.push(p.message));
    const heard = track(client);
    await until(() => client.status.get().state === "live", "live");
    const session = await client.createSession();
    expect(problems.filter((p) => p.startsWith("server calls now go"))).toEqual([]);

    proxy.cut({ refuse: true });
    // A send whose direct attempt fails is repeated over the relay with the same client_request_id.
    stack.backend.script({ kind: "stream", parts: [{ data: { choices: [{ index: 0, delta: { content: "ok" } }] } }] });
    const sent = await client.send(session.id, { content: "over the relay" });
    expect(problems).toContain("server calls now go through the bridge relay");
    const again = await client.send(session.id, {
      content: "over the relay",
      client_request_id: sent.client_request_id,
    });
    expect(again.request_id).toBe(sent.request_id);
    await until(
      () => heard.some((e) => e.type === "request_completed" && e.request_id === sent.request_id),
      "reply completed",
    );
    expect(heard.filter((e) => e.type === "request_started")).toHaveLength(1);

    // Back to direct once the probe time has passed and server_url answers.
    proxy.allow();
    now += 60_000;
    await client.listSessions();
    expect(problems.at(-1)).toBe("server calls now go straight to server_url");
    const ids = heard.map((e) => e.event_id);
    expect(ids).toEqual([...new Set(ids)].sort());
    // Nothing lost across both switches: every event the store holds (partials aside: GET /events merges them) was heard.
    const stored = (await stack.server.request({ method: "GET", url: "/events?since_id=0&limit=1000" })).json
      .events as AnyEvent[];
    const heardIds = new Set(ids);
    expect(
      stored.filter((e) => e.type !== "partial" && e.event_id >= ids[0]!).every((e) => heardIds.has(e.event_id)),
    ).toBe(true);
    client.close();
    await proxy.close();
  });

  it("route: relay sends every call through the bridge, even with server_url up (C62)", async () => {
    const stack = await relayStack();
    const credentials = await pairDevice(stack, stack.serverUrl);
    const seen: string[] = [];
    const client = startClient(credentials, {
      route: "relay",
      fetch: async (input) => {
        seen.push(String(input));
        throw new Error("direct HTTP must not be used");
      },
    });
    await until(() => client.status.get().state === "live", "live through the bridge only");
    await client.createSession();
    expect(seen).toEqual([]);
    client.close();
  });
});
