// GET /app-config.json on the bridge (docs/bridge.md "App config", B174-B175): the server sends its app config with
// every join of its link; the bridge answers it, without a token, for the one server whose app it serves (or the one
// `?server_id=` names), keeps it across its own restart, and says 404 when it knows none.
import { afterEach, describe, expect, it } from "vitest";
import { appConfigSchema } from "../../client/wire/app-config.ts";
import { fakeServer, runCleanups, testBridge, until, type TestBridge } from "./helpers.ts";
import { serverPeer } from "./server-peer.ts";

afterEach(runCleanups);

async function appConfigOf(bridge: TestBridge, query = "") {
  const response = await fetch(`${bridge.httpUrl}/app-config.json${query}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("GET /app-config.json on the bridge", () => {
  it("B174: answers the config a real server sent with its join, by ?server_id=, and 404 for a server it does not know", async () => {
    const bridge = await testBridge();
    expect((await appConfigOf(bridge)).status).toBe(404);
    await serverPeer(bridge.url);
    await until(
      () => bridge.core.registry.get("srv1")?.appConfig !== undefined,
      "the server's join reached the bridge",
    );
    const answered = await appConfigOf(bridge, "?server_id=srv1");
    expect(answered.status).toBe(200);
    expect(appConfigSchema.parse(answered.body)).toEqual({
      server_id: "srv1",
      server_url: "http://127.0.0.1:8787",
      bridge_url: bridge.url,
      app_url: "http://127.0.0.1:8787/",
    });
    expect((await appConfigOf(bridge, "?server_id=nobody")).status).toBe(404);
    // The server's app is served by the server, not here: without a server_id the bridge has none to give.
    expect((await appConfigOf(bridge)).status).toBe(404);
  });

  it("B175: answers, without a token, for the server whose app it serves, and still after a restart of the bridge", async () => {
    const first = await testBridge();
    const config = {
      server_id: "srv1",
      server_url: "http://192.168.1.5:8787",
      bridge_url: "wss://relay.example.com/socket",
      app_url: first.appUrl,
    };
    const server = await fakeServer(first.url, { appConfig: config });
    expect(server.joined.status).toBe("ok");
    await fakeServer(first.url, { serverId: "srv2", credential: "other-server-".padEnd(48, "o") });
    expect(await appConfigOf(first)).toEqual({ status: 200, body: config });
    await first.close();
    const again = await testBridge({}, first.dataDir, first.port);
    expect(await appConfigOf(again)).toEqual({ status: 200, body: config });
  });
});
