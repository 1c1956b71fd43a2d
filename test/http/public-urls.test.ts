// The URLs handed to apps by POST /pairing (server_url, bridge_url, pair_url) when the server listens on a wildcard
// HOST: the machine's LAN address stands in (docs/client.md P2). The rules themselves: test/pairing/urls.test.ts.
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AdminClient, parsePairUrl } from "../../client/index.ts";
import { firstLanAddress } from "../../server/pairing/urls.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";

describe("POST /pairing with HOST=0.0.0.0", () => {
  let server: TestServer | undefined;
  afterEach(() => server?.close());

  it("hands out this machine's LAN address in server_url, bridge_url and pair_url", async () => {
    server = await startTestServer(
      {},
      { host: "0.0.0.0", serverUrl: "http://0.0.0.0:8787", bridgeUrl: "ws://127.0.0.1:9/socket" },
    );
    await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(server.runtime.app.server.address() as AddressInfo).port}`;
    const created = await new AdminClient({ serverUrl: url, adminToken: ADMIN_TOKEN }).createPairing();
    const address = firstLanAddress() ?? "0.0.0.0";
    const bridgeHost = firstLanAddress() ?? "127.0.0.1";
    expect(created).toMatchObject({ server_url: `http://${address}:8787`, bridge_url: `ws://${bridgeHost}:9/socket` });
    expect(created.pair_url.startsWith(`http://${address}:8787/#/pair?`)).toBe(true);
    expect(parsePairUrl(created.pair_url)).toEqual({
      code: created.code,
      bridge: `ws://${bridgeHost}:9/socket`,
      key: created.server_key,
    });
  });
});
