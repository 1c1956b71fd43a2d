// Where an app finds this server and its bridge (server/pairing/urls.ts): a wildcard HOST is replaced by the
// machine's LAN address, unless server.public_url / BRIDGE_PUBLIC_URL say otherwise (docs/client.md P2). Called
// directly; test/http/public-urls.test.ts checks POST /pairing hands them out.
import type { NetworkInterfaceInfo } from "node:os";
import { describe, expect, it } from "vitest";
import { advertisedUrls, firstLanAddress, pairingUrls } from "../../server/pairing/urls.ts";

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

  it("replaces each local host of the bridge's URL, keeps a trailing slash as written, and leaves a URL that does not parse", () => {
    for (const host of ["127.0.0.1", "localhost", "[::1]", "0.0.0.0", "[::]"])
      expect(advertisedUrls({ ...base, host: "0.0.0.0", bridgeUrl: `ws://${host}:4000/socket` }).bridgeUrl).toBe(
        "ws://192.168.1.5:4000/socket",
      );
    expect(advertisedUrls({ ...base, host: "0.0.0.0", serverUrl: "http://0.0.0.0:8787/" }).serverUrl).toBe(
      "http://192.168.1.5:8787/",
    );
    expect(advertisedUrls({ ...base, host: "0.0.0.0", serverUrl: "http://0.0.0.0:8787/app/" }).serverUrl).toBe(
      "http://192.168.1.5:8787/app/",
    );
    expect(advertisedUrls({ ...base, host: "0.0.0.0", serverUrl: "not a url" }).serverUrl).toBe("not a url");
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
    // os.networkInterfaces() types each entry as possibly undefined.
    expect(firstLanAddress({ gone: undefined, eth0: [info("10.0.0.8", "IPv4", false)] })).toBe("10.0.0.8");
  });
});

describe("pairingUrls", () => {
  it("hands out the bridge's public URL over the one it is reached at, and the app's URL only when one is set", () => {
    const urls = { server: "http://10.0.0.7:8787", bridge: "ws://10.0.0.7:4000/socket" };
    expect(pairingUrls({ urls })).toEqual({ serverUrl: urls.server, bridgeUrl: urls.bridge });
    expect(pairingUrls({ urls: { ...urls, bridgePublic: "wss://relay.example/socket" } })).toEqual({
      serverUrl: urls.server,
      bridgeUrl: "wss://relay.example/socket",
    });
    expect(pairingUrls({ urls: { ...urls, app: "https://app.example" } })).toEqual({
      serverUrl: urls.server,
      bridgeUrl: urls.bridge,
      appUrl: "https://app.example",
    });
  });
});
