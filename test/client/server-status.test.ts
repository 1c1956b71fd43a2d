// The server's status as the bridge reports it (docs/client.md "Server status" and "The badge", C162-C165): the
// events join's `server_online` and the `server_status` push, over the official phoenix client and wire against a
// bridge stand-in, with a real server for HTTP. The library never says live while the bridge says the server is
// offline; calls that cannot reach the server then fail with ServerOfflineError (`server_offline`), not a network
// error; the badge reads exactly one of five words.
import { describe, expect, it } from "vitest";
import type { AddressInfo } from "node:net";
import { connect, type ChatClient, type ConnectOptions } from "../../client/connection/client.ts";
import { connectionBadge } from "../../client/connection/badge.ts";
import type { ConnectionStatus } from "../../client/connection/machine.ts";
import { NetworkError, ServerOfflineError } from "../../client/transport/errors.ts";
import type { FetchLike } from "../../client/transport/http.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { LIBRARY_ERRORS } from "../../client/wire/library-errors.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";
import { FakeBridge, type FakeBridgeOptions } from "./support/fake-bridge.ts";
import { NodeWebSocket, until } from "./support/stack.ts";
import { useClosing } from "../support/use-closing.ts";
import { freePort } from "../support/ports.ts";

const closing = useClosing();

const DOWN_SINCE = "2026-11-27T07:00:00.000Z";
const UP_SINCE = "2026-11-27T07:05:00.000Z";

/** A fetch the test can switch off, as a server process that is gone. */
function switchableFetch() {
  const state = { down: false };
  const fetch: FetchLike = (input, init) =>
    state.down ? Promise.reject(new TypeError("fetch failed")) : globalThis.fetch(input, init);
  return { state, fetch };
}

async function started(bridgeOptions: FakeBridgeOptions, options: Partial<ConnectOptions> = {}) {
  const server = closing.own(await startTestServer({ server: { server_id: "srv1" } }));
  const bridge = closing.own(await FakeBridge.start(bridgeOptions));
  await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const serverUrl = `http://127.0.0.1:${(server.runtime.app.server.address() as AddressInfo).port}`;
  const http = switchableFetch();
  const credentials = {
    bridge_url: bridge.url,
    server_id: "srv1",
    device_id: "dev_1",
    device_token: ADMIN_TOKEN,
    server_url: serverUrl,
  };
  const client = connect(credentials, {
    WebSocket: NodeWebSocket,
    reconnectAfterMs: () => 20,
    retryDelaysMs: [20],
    pollWaitMs: 500,
    route: "direct",
    fetch: http.fetch,
    ...options,
  });
  closing.own(client);
  const statuses: ConnectionStatus[] = [];
  client.status.subscribe((status) => statuses.push(status));
  const heard: AnyEvent[] = [];
  client.on("*", (event) => heard.push(event));
  return { client, http, statuses, heard, bridge, server };
}

const badgeOf = (client: ChatClient) => connectionBadge(client.status.get()).label;

async function appendMessage(target: TestServer, content: string): Promise<void> {
  const created = await target.request({ method: "POST", url: "/sessions", payload: {} });
  const id = (created.json as { session: { id: string } }).session.id;
  await target.request({ method: "POST", url: `/sessions/${id}/messages`, payload: { role: "user", content } });
}

describe("the server's status from the bridge", () => {
  it("leaves live when the server goes offline, fails calls with server_offline, and is live again when it is back (C162, C163)", async () => {
    const { client, http, bridge, server, heard } = await started({ serverOnline: true });
    await until(() => client.status.get().state === "live", "live");
    expect(client.status.get()).toEqual({ state: "live", server: { online: true } });
    expect(badgeOf(client)).toBe("Live");

    // The server process is gone: the bridge says so, and nothing answers at server_url.
    http.state.down = true;
    bridge.push("server_status", { online: false, since: DOWN_SINCE });
    await until(() => client.status.get().state === "offline", "offline");
    expect(client.status.get()).toEqual({ state: "offline", server: { online: false, since: DOWN_SINCE } });
    expect(badgeOf(client)).toBe("Server offline");
    const failure = await client.listSessions().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServerOfflineError);
    expect(failure).not.toBeInstanceOf(NetworkError);
    expect(failure).toMatchObject({ code: "server_offline", since: DOWN_SINCE });
    expect((failure as Error).message).toMatch(/the server is offline/);
    expect(Object.hasOwn(LIBRARY_ERRORS, "server_offline")).toBe(true);

    // The server answers again before its link is back: events reach the app by HTTP, so the badge says Polling.
    await appendMessage(server, "stored while the link was down");
    http.state.down = false;
    await until(() => client.status.get().state === "polling", "polling");
    expect(badgeOf(client)).toBe("Polling");
    await until(() => heard.some((event) => event.type === "message_appended"), "the event over HTTP");

    bridge.push("server_status", { online: true, since: UP_SINCE });
    await until(() => client.status.get().state === "live", "live again");
    expect(client.status.get()).toEqual({ state: "live", server: { online: true, since: UP_SINCE } });
    expect(badgeOf(client)).toBe("Live");
    await expect(client.listSessions()).resolves.toHaveLength(1);
    // Live means the bridge's pushes are trusted again: an event pushed now is delivered at once.
    await appendMessage(server, "after the link came back");
    const page = await server.request({ method: "GET", url: "/events?since_id=0&limit=1000" });
    const latest = (page.json as { events: AnyEvent[] }).events
      .filter((event) => event.type === "message_appended")
      .at(-1)!;
    bridge.push("session_event", { event: latest });
    await until(() => heard.some((event) => event.event_id === latest.event_id), "the pushed event");
  });

  it("a join that says the server is offline never goes live (C164)", async () => {
    const { client, http, statuses } = await started({ serverOnline: false });
    http.state.down = true;
    // HTTP fails at once; the bridge is asked all the same, and its join reply says the server is what is missing.
    await until(() => badgeOf(client) === "Server offline", "Server offline");
    expect(client.status.get()).toEqual({ state: "offline", server: { online: false } });
    http.state.down = false;
    await until(() => client.status.get().state === "polling", "polling once HTTP answers");
    expect(badgeOf(client)).toBe("Polling");
    expect(statuses.map((status) => status.state)).not.toContain("live");
  });

  it("a relayed call the bridge answers server_unavailable is a ServerOfflineError (C163)", async () => {
    const { client } = await started({}, { route: "relay" });
    const failure = await client.listSessions().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServerOfflineError);
    expect(failure).toMatchObject({ code: "server_offline" });
  });

  it("an older bridge that says nothing leaves the server unknown: live, no `server` (C162)", async () => {
    const { client } = await started({});
    await until(() => client.status.get().state === "live", "live");
    expect(client.status.get()).toEqual({ state: "live" });
    expect(badgeOf(client)).toBe("Live");
  });

  it("a malformed server_status push is reported and changes nothing", async () => {
    const { client, bridge } = await started({ serverOnline: true });
    const problems: string[] = [];
    client.onProblem((problem) => problems.push(problem.message));
    await until(() => client.status.get().state === "live", "live");
    bridge.push("server_status", { online: "no" });
    await until(() => problems.includes("malformed bridge push skipped"), "reported");
    expect(client.status.get()).toEqual({ state: "live", server: { online: true } });
  });
});

describe("the badge (C165)", () => {
  const off = { online: false, since: DOWN_SINCE };
  const rows: [ConnectionStatus, boolean | undefined, string][] = [
    [{ state: "live" }, undefined, "Live"],
    [{ state: "live", server: { online: true } }, true, "Live"],
    [{ state: "live" }, false, "Offline"],
    [{ state: "polling" }, undefined, "Polling"],
    [{ state: "polling", server: off }, undefined, "Polling"],
    [{ state: "offline" }, undefined, "Offline"],
    [{ state: "offline", server: off }, undefined, "Server offline"],
    [{ state: "offline", server: off }, false, "Offline"],
    [{ state: "catching_up" }, undefined, "Connecting"],
    [{ state: "catching_up", server: off }, undefined, "Server offline"],
    [{ state: "catching_up", retrying: true }, undefined, "Offline"],
    [{ state: "catching_up", retrying: true, server: off }, undefined, "Server offline"],
    [{ state: "stopped", reason: "closed" }, undefined, "Offline"],
    [{ state: "stopped", reason: "revoked" }, undefined, "Offline"],
  ];
  it.each(rows)("%j with the network %s reads %s", (status, networkOnline, label) => {
    expect(connectionBadge(status, { networkOnline }).label).toBe(label);
  });

  it("with neither the server nor the bridge answering it reads Offline, and stays Offline through the retries (C172)", async () => {
    const [serverPort, bridgePort] = [await freePort(), await freePort()];
    const credentials = {
      bridge_url: `ws://127.0.0.1:${bridgePort}/socket`,
      server_id: "srv1",
      device_id: "dev_1",
      device_token: ADMIN_TOKEN,
      server_url: `http://127.0.0.1:${serverPort}`,
    };
    // A relayed call would wait for this long if the bridge's failure did not end it: the badge would read
    // Connecting all along.
    const options = {
      WebSocket: NodeWebSocket,
      reconnectAfterMs: () => 20,
      retryDelaysMs: [20],
      relayTimeoutMs: 600_000,
    };
    const client = closing.own(connect(credentials, options));
    const labels: string[] = [];
    client.status.subscribe((status) => labels.push(connectionBadge(status).label));
    await until(() => labels.filter((label) => label === "Offline").length >= 4, "several failed retries");
    const sinceOffline = labels.slice(labels.indexOf("Offline"));
    expect(new Set(sinceOffline)).toEqual(new Set(["Offline"]));
  });
});
