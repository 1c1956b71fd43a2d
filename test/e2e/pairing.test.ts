// Pairing end-to-end (docs/security.md S10-S15): the QR's key makes a bridge in the middle of pairing fail; a typed
// code shows the fingerprint to compare; the bridge never sees the device token; plain stock clients keep getting
// `session_event {event}` unless the config requires end-to-end encryption; GET /devices says each device's mode; the
// server's key file is private.
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateKeyPair, sealCredentials, sharedKey } from "../../client/wire/crypto/index.ts";
import { pair, parsePairUrl, PairingError, serverFingerprint } from "../../client/index.ts";
import { PendingPairs } from "../../bridge/channels/server-channel.ts";
import type { PairResult } from "../../client/wire/frames.ts";
import { SERVER_KEY_FILE } from "../../server/e2e/server-key.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { UNUSED_DEVICE_MS } from "../../server/pairing/pairing-service.ts";
import { NodeWebSocket, Stack, until } from "../client/support/stack.ts";
import { joinOnce, phoenixSocket } from "../bridge/helpers.ts";
import { BridgeCapture } from "./capture.ts";

let stack: Stack | undefined;
let capture: BridgeCapture | undefined;
const { ask, settle } = PendingPairs.prototype;
afterEach(async () => {
  PendingPairs.prototype.ask = ask;
  PendingPairs.prototype.settle = settle;
  capture?.uninstall();
  capture = undefined;
  await stack?.close();
  stack = undefined;
});

/** The bridge answers pairings itself with its own key pair, sealed to the device's key (a bridge in the middle). */
function bridgeInTheMiddle(): string {
  const mitm = generateKeyPair();
  const deviceKeys = new Map<string, string>();
  PendingPairs.prototype.ask = function (this: PendingPairs, state, app, code, deviceName, deviceKey, timeoutMs) {
    const asked = ask.call(this, state, app, code, deviceName, deviceKey, timeoutMs);
    if (deviceKey) deviceKeys.set("last", deviceKey);
    return asked;
  };
  PendingPairs.prototype.settle = function (this: PendingPairs, requestId: string, result: PairResult) {
    const deviceKey = deviceKeys.get("last");
    if (result.status !== "ok" || !deviceKey || !("sealed" in result)) return settle.call(this, requestId, result);
    const key = sharedKey(mitm.secretKey, deviceKey, "pairing", mitm.publicKey, deviceKey);
    const forged = {
      server_id: "srv1",
      device_id: result.device_id,
      device_token: "forged-token",
      server_url: result.server_url,
    };
    return settle.call(this, requestId, {
      ...result,
      server_key: mitm.publicKey,
      sealed: sealCredentials(key, "srv1", result.device_id, JSON.stringify(forged)),
    });
  };
  return mitm.publicKey;
}

/** Waits until the stack's bridge holds the pairing code's grant. */
function codeOnBridge(stack: Stack, code: string): Promise<void> {
  return until(() => stack.bridge!.core.registry.findCode(hashPairingCode(code)) !== undefined, "code on the bridge");
}

/** A pairing code made on the stack's server (its pair_url's parts), once the bridge holds it. */
async function linkOnBridge(stack: Stack) {
  const response = await stack.server.request({ method: "POST", url: "/pairing", payload: {} });
  const link = parsePairUrl(response.json.pair_url)!;
  await codeOnBridge(stack, link.code);
  return link;
}

/** Pairs through the link while a bridge in the middle answers with its own server key: resolves with the failure. */
function pairPastMiddle(link: NonNullable<ReturnType<typeof parsePairUrl>>, deviceName: string): Promise<unknown> {
  bridgeInTheMiddle();
  const options = {
    bridgeUrl: link.bridge,
    code: link.code,
    deviceName,
    serverKey: link.key,
    WebSocket: NodeWebSocket,
  };
  return pair(options).catch((error: unknown) => error);
}

describe("pairing with the server's key", () => {
  it("S10: pair_url carries the key; the library pairs through it and the bridge never sees the device token", async () => {
    capture = BridgeCapture.install();
    stack = await Stack.start();
    const response = await stack.server.request({ method: "POST", url: "/pairing", payload: {} });
    const link = parsePairUrl(response.json.pair_url)!;
    expect(link.key).toBe(response.json.server_key);
    expect(response.json.fingerprint).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    await codeOnBridge(stack, link.code);
    const credentials = await pair({
      bridgeUrl: link.bridge,
      code: link.code,
      deviceName: "phone",
      serverKey: link.key,
      WebSocket: NodeWebSocket,
    });
    expect(await serverFingerprint(credentials)).toBe(response.json.fingerprint);
    expect(capture.frames.some((frame) => frame.includes(credentials.device_token))).toBe(false);
    expect(capture.frames.some((frame) => frame.includes("device_key"))).toBe(true);
  });

  it("S11: a bridge that answers with its own server key is refused when pair_url has the key", async () => {
    stack = await Stack.start();
    const link = await linkOnBridge(stack);
    const failure = await pairPastMiddle(link, "phone");
    expect(failure).toBeInstanceOf(PairingError);
    expect((failure as PairingError).reason).toBe("server_key_mismatch");
  });

  it("S59: the device a refused pairing left on the server is revoked once it has gone unused for an hour", async () => {
    stack = await Stack.start();
    const honest = await stack.pair("honest phone");
    const used = await stack.server.request({ method: "GET", url: "/e2e/keys", token: honest.device_token });
    expect(used.status).toBe(200);
    const link = await linkOnBridge(stack);
    const failure = await pairPastMiddle(link, "refused phone");
    expect((failure as PairingError).reason).toBe("server_key_mismatch");
    const { pairing } = stack.server.runtime.ctx;
    const refused = pairing.listDevices().find((device) => device.name === "refused phone")!;
    expect(refused).toMatchObject({ revoked_at: null, last_seen_at: null });
    // Within the hour nothing happens (the app may still be on its way); past it the unused device goes, alone.
    expect(pairing.revokeUnused(Date.parse(refused.created_at) + UNUSED_DEVICE_MS - 1)).toEqual([]);
    expect(pairing.revokeUnused(Date.parse(refused.created_at) + UNUSED_DEVICE_MS)).toEqual([refused.device_id]);
    expect(pairing.device(refused.device_id)!.revoked_at).not.toBeNull();
    expect(pairing.device(honest.device_id)!.revoked_at).toBeNull();
  });

  it("S12: by typed code the answer's key is taken, and its fingerprint tells a bridge in the middle apart", async () => {
    stack = await Stack.start();
    const honest = await stack.pair();
    expect(await serverFingerprint(honest)).toBe(stack.server.runtime.ctx.e2e.fingerprint);
    const mitmKey = bridgeInTheMiddle();
    const code = await stack.pairingCode();
    const fooled = await pair({ bridgeUrl: stack.bridgeUrl, code, deviceName: "phone", WebSocket: NodeWebSocket });
    expect(fooled.e2e!.server_key).toBe(mitmKey);
    expect(await serverFingerprint(fooled)).not.toBe(stack.server.runtime.ctx.e2e.fingerprint);
  });
});

/** Pairs a device without a key, as a stock phoenix client would: its events come in clear. */
async function pairPlain(stack: Stack) {
  const code = await stack.pairingCode();
  return pair({ bridgeUrl: stack.bridgeUrl, code, deviceName: "stock", e2e: false, WebSocket: NodeWebSocket });
}

describe("plain devices", () => {
  it("S13: a stock phoenix client paired without a key gets session_event {event}; GET /devices says each mode", async () => {
    stack = await Stack.start();
    const encrypting = await stack.pair("encrypting");
    const plain = await pairPlain(stack);
    expect(plain.e2e).toBeUndefined();
    const devices = (await stack.server.request({ method: "GET", url: "/devices" })).json.devices as Array<{
      device_id: string;
      mode: string;
    }>;
    expect(devices.find((device) => device.device_id === encrypting.device_id)?.mode).toBe("e2e");
    expect(devices.find((device) => device.device_id === plain.device_id)?.mode).toBe("plain");
    const socket = phoenixSocket(stack.bridgeUrl, { authToken: plain.device_token });
    const channel = socket.channel("events:server:srv1", {});
    const pushes: Array<{ event: string; payload: unknown }> = [];
    channel.onMessage = (event: string, payload: unknown) => {
      if (!event.startsWith("phx_") && !event.startsWith("chan_reply")) pushes.push({ event, payload });
      return payload;
    };
    expect((await joinOnce(channel)).status).toBe("ok");
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "PLAIN-MARKER");
    await until(
      () => pushes.some((push) => JSON.stringify(push.payload).includes("PLAIN-MARKER")),
      "the stock client got the event in clear",
    );
    expect(pushes.every((push) => push.event === "session_event")).toBe(true);
    expect(Object.keys(pushes[0]!.payload as object)).toEqual(["event"]);
    socket.disconnect();
  });

  it("S14: with bridge.require_e2e plain pairing is refused e2e_required; pairing with a key still works", async () => {
    stack = await Stack.start({}, { bridge: { require_e2e: true } });
    const failure = await pairPlain(stack).catch((error: unknown) => error);
    expect((failure as PairingError).reason).toBe("e2e_required");
    const devices = (await stack.server.request({ method: "GET", url: "/devices" })).json.devices as unknown[];
    expect(devices).toEqual([]);
    const encrypting = await stack.pair();
    expect(encrypting.e2e).toBeDefined();
  });
});

describe("the server's key", () => {
  it("S15: lives in DATA_DIR, mode 0600, and stays the same across restarts", async () => {
    stack = await Stack.start();
    const file = join(stack.serverDir, SERVER_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = stack.server.runtime.ctx.e2e.publicKey;
    await stack.stopServer();
    await stack.startServer();
    expect(stack.server.runtime.ctx.e2e.publicKey).toBe(before);
  });
});
