// Pairing from a pair_url and the end of a device, against a real server and bridge on 127.0.0.1 with the
// official phoenix client: the admin client creates the link, parsePairUrl reads it, pair() redeems it; a
// revoked or unknown device makes the client forget its saved credentials and stop with `revoked` (C33-C35).
import { describe, expect, it } from "vitest";
import {
  AdminClient,
  connect,
  loadCredentials,
  memoryStorage,
  pair,
  parsePairUrl,
  saveCredentials,
  UnauthorizedError,
  ChatClient,
  type Credentials,
} from "../../client/index.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { ADMIN_TOKEN } from "../support/server.ts";
import { FAST_RECONNECT, NodeWebSocket, Stack, until, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

async function pairedThroughLink(s: Stack, admin: AdminClient): Promise<Credentials> {
  const created = await admin.createPairing();
  const link = parsePairUrl(created.pair_url);
  expect(link).toEqual({ code: created.code, bridge: s.bridgeUrl, key: created.server_key });
  // The code reaches the bridge through the forwarder a moment after POST /pairing.
  await until(
    () => s.bridge?.core.registry.findCode(hashPairingCode(link!.code)) !== undefined,
    "code registered on the bridge",
  );
  const credentials = await pair({
    bridgeUrl: link!.bridge,
    code: link!.code,
    deviceName: "phone",
    serverKey: link!.key,
    WebSocket: NodeWebSocket,
  });
  return { ...credentials, server_url: s.serverUrl };
}

describe("pair_url", () => {
  it("POST /pairing answers a pair_url at the app's URL that the library parses and pairs with", async () => {
    const stack = await scope.start();
    const admin = new AdminClient({ serverUrl: stack.serverUrl, adminToken: ADMIN_TOKEN });
    const created = await admin.createPairing();
    // The app is served by the server: its URL is the server's public URL (the stack's public_url).
    expect(created.pair_url).toBe(
      `http://127.0.0.1:1/#/pair?code=${created.code}&bridge=${encodeURIComponent(stack.bridgeUrl)}&key=${created.server_key}`,
    );
    const credentials = await pairedThroughLink(stack, admin);
    const devices = await admin.listDevices();
    expect(devices.map((device) => device.device_id)).toContain(credentials.device_id);
  });

  it("parsePairUrl reads a fragment alone and the optional key, and says undefined for anything else", () => {
    const key = "abc_-1".padEnd(43, "Q");
    expect(parsePairUrl(`#/pair?code=AB12&bridge=wss%3A%2F%2Frelay.example%2Fsocket&key=${key}`)).toEqual({
      code: "AB12",
      bridge: "wss://relay.example/socket",
      key,
    });
    for (const url of [
      "http://host/",
      "http://host/#/sessions",
      "http://host/#/pair?code=AB12",
      "http://host/#/pair?bridge=ws%3A%2F%2Fh%2Fsocket",
      "http://host/#/pair?code=AB12&bridge=javascript%3Aalert(1)",
      "http://host/#/pair?code=AB12&bridge=ws%3A%2F%2Fh%2Fsocket&key=not%20base64url",
      "http://host/#/pair?code=AB12&bridge=ws%3A%2F%2Fh%2Fsocket&key=abc_-1",
      `http://host/#/pair?code=${"A".repeat(101)}&bridge=ws%3A%2F%2Fh%2Fsocket`,
    ]) {
      expect(parsePairUrl(url), url).toBeUndefined();
    }
  });
});

describe("revocation", () => {
  it("a device revoked by the admin: its saved credentials are gone when the status says revoked", async () => {
    const stack = await scope.start();
    const admin = new AdminClient({ serverUrl: stack.serverUrl, adminToken: ADMIN_TOKEN });
    const credentials = await stack.pair();
    const storage = memoryStorage();
    await saveCredentials(storage, credentials);
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, storage }));
    await untilLive(client);
    let credentialsWhenRevoked: Credentials | undefined | "unseen" = "unseen";
    client.status.subscribe((status) => {
      if (status.state === "stopped") void loadCredentials(storage).then((stored) => (credentialsWhenRevoked = stored));
    });
    const revoked = await admin.revokeDevice(credentials.device_id);
    expect(revoked.revoked_at).toEqual(expect.any(String));
    await until(() => client.status.get().state === "stopped", "stopped");
    expect(client.status.get()).toEqual({ state: "stopped", reason: "revoked" });
    await until(() => credentialsWhenRevoked !== "unseen", "status observed");
    expect(credentialsWhenRevoked).toBeUndefined();
  });

  it("an unknown device token (HTTP 401) stops with revoked and forgets it; another device's saved credentials stay", async () => {
    const stack = await scope.start();
    const real = await stack.pair();
    const unknown: Credentials = { ...real, device_token: "not-a-token".padEnd(43, "x") };
    const storage = memoryStorage();
    await saveCredentials(storage, unknown);
    const client = scope.own(connect(unknown, { ...FAST_RECONNECT, storage }));
    await until(() => client.status.get().state === "stopped", "stopped");
    expect(client.status.get()).toEqual({ state: "stopped", reason: "revoked" });
    await until(async () => (await loadCredentials(storage)) === undefined, "credentials forgotten");

    // A client whose token dies while someone else's credentials are saved leaves those alone.
    await saveCredentials(storage, real);
    const other = connect(unknown, { ...FAST_RECONNECT, storage });
    await until(() => other.status.get().state === "stopped", "stopped");
    other.close();
    expect(await loadCredentials(storage)).toEqual(real);
  });

  it("a 401 on an app call (not the feed) stops the client too", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const storage = memoryStorage();
    await saveCredentials(storage, credentials);
    // Not started: only the app's own call meets the refusal.
    const client = scope.own(new ChatClient({ ...credentials, device_token: "wrong".padEnd(43, "w") }, { storage }));
    await saveCredentials(storage, { ...credentials, device_token: "wrong".padEnd(43, "w") });
    await expect(client.listSessions()).rejects.toBeInstanceOf(UnauthorizedError);
    await until(() => client.status.get().state === "stopped", "stopped");
    expect(client.status.get()).toEqual({ state: "stopped", reason: "revoked" });
    await until(async () => (await loadCredentials(storage)) === undefined, "credentials forgotten");
  });
});
