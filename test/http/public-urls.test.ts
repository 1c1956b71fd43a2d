// The URLs handed to apps (POST /pairing: server_url, bridge_url, pair_url): a wildcard HOST is replaced by the
// machine's LAN address, unless server.public_url / BRIDGE_PUBLIC_URL say otherwise (docs/client.md P2).
import type { AddressInfo } from "node:net";
import type { NetworkInterfaceInfo } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { AdminClient, parsePairUrl } from "../../client/index.ts";
import { advertisedUrls, firstLanAddress } from "../../server/pairing/urls.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";

const lan = () => "192.168.1.5";
const base = { serverUrl: "http://0.0.0.0:8787", bridgeUrl: "ws://127.0.0.1:4000/socket", lanAddress: lan };

describe("advertisedUrls", () => {
  it("uses the LAN address for a wildcard HOST (IPv4 or IPv6)", () => {
    expect(advertisedUrls({ ...base, host: "0.0.0.0" })).toEqual({
      serverUrl: "http://192.168.1.5:8787",
      bridgeUrl: "ws://192.168.1.5:4000/socket",
    });
    expect(
      advertisedUrls({ ...base, host: "::", serverUrl: "http://[::]:8787", bridgeUrl: "ws://localhost:4000/socket" }),
    ).toEqual({
      serverUrl: "http://192.168.1.5:8787",
      bridgeUrl: "ws://192.168.1.5:4000/socket",
    });
  });

  it("keeps what was said: server.public_url, BRIDGE_PUBLIC_URL, a bridge on another host, a specific HOST, no LAN", () => {
    expect(
      advertisedUrls({
        ...base,
        host: "0.0.0.0",
        publicUrl: "https://chat.example",
        bridgePublicUrl: "wss://relay.example/socket",
      }),
    ).toEqual({
      serverUrl: "https://chat.example",
      bridgeUrl: "wss://relay.example/socket",
    });
    expect(advertisedUrls({ ...base, host: "0.0.0.0", bridgeUrl: "ws://bridge.lan:4000/socket" }).bridgeUrl).toBe(
      "ws://bridge.lan:4000/socket",
    );
    expect(advertisedUrls({ ...base, host: "127.0.0.1", serverUrl: "http://127.0.0.1:8787" })).toEqual({
      serverUrl: "http://127.0.0.1:8787",
      bridgeUrl: "ws://127.0.0.1:4000/socket",
    });
    expect(advertisedUrls({ ...base, host: "0.0.0.0", lanAddress: () => undefined })).toEqual({
      serverUrl: "http://0.0.0.0:8787",
      bridgeUrl: "ws://127.0.0.1:4000/socket",
    });
    expect(advertisedUrls({ ...base, host: "0.0.0.0", bridgeUrl: "" }).bridgeUrl).toBe("");
  });

  it("firstLanAddress takes the first non-internal IPv4", () => {
    const info = (address: string, family: "IPv4" | "IPv6", internal: boolean) =>
      ({ address, family, internal }) as NetworkInterfaceInfo;
    expect(
      firstLanAddress({
        lo: [info("127.0.0.1", "IPv4", true)],
        eth0: [info("fd00::2", "IPv6", false), info("10.0.0.7", "IPv4", false)],
      }),
    ).toBe("10.0.0.7");
    expect(firstLanAddress({ lo: [info("127.0.0.1", "IPv4", true)] })).toBeUndefined();
  });
});

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
