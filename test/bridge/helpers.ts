// Shared parts of the bridge suites: a real bridge on 127.0.0.1 in a temp dir, official phoenix clients over
// `ws`, a fake server peer speaking the server channel's protocol, and a condition wait (never a fixed sleep).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Socket, type Channel } from "phoenix";
import { WebSocket } from "ws";
import { formatEventId } from "../../client/wire/index.ts";
import { startBridge, type RunningBridge } from "../../bridge/bridge.ts";
import { ManualClock } from "./manual-clock.ts";
import { defaultBridgeConfig, type BridgeConfig } from "../../bridge/config.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { hashPairingCode } from "../../server/pairing/codes.ts";
import { MemoryLogger } from "../support/memory-logger.ts";
import { holds } from "../support/holds.ts";

export const cleanups: Array<() => unknown> = [];

export async function runCleanups(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "bridge-test-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface TestBridge extends RunningBridge {
  log: MemoryLogger;
  clock: ManualClock;
  dataDir: string;
}

export async function testBridge(
  overrides: Partial<BridgeConfig> = {},
  dataDir = tempDir(),
  port = 0,
): Promise<TestBridge> {
  const log = new MemoryLogger();
  const clock = new ManualClock();
  const bridge = await startBridge({
    config: defaultBridgeConfig({ port, dataDir, ...overrides }),
    clock,
    log,
    sweepEveryMs: 0,
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await bridge.close();
  };
  cleanups.push(close);
  return { ...bridge, close, log, clock, dataDir };
}

/** An official phoenix client socket over ws, with fast reconnects so tests never wait for the 5 s backoff. */
export function phoenixSocket(
  url: string,
  options: {
    params?: Record<string, unknown> | (() => Record<string, unknown>);
    authToken?: string;
    vsn?: string;
    heartbeatIntervalMs?: number;
  } = {},
): Socket {
  const socket = new Socket(url, {
    transport: WebSocket as unknown as new (endpoint: string) => object,
    params: options.params ?? {},
    reconnectAfterMs: () => 20,
    rejoinAfterMs: () => 20,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 30_000,
    ...(options.vsn ? { vsn: options.vsn } : {}),
    ...(options.authToken ? { authToken: options.authToken } : {}),
  } as ConstructorParameters<typeof Socket>[1]);
  socket.connect();
  cleanups.push(() => socket.disconnect());
  return socket;
}

export type Reply = { status: "ok" | "error" | "timeout"; response: Record<string, unknown> };

/** Joins once and resolves with the first reply; the channel is left on error so the client stops rejoining. */
export function joinOnce(channel: Channel, { leaveOnError = true } = {}): Promise<Reply> {
  return new Promise((resolve) => {
    channel
      .join()
      .receive("ok", (response: Record<string, unknown>) => resolve({ status: "ok", response }))
      .receive("error", (response: Record<string, unknown>) => {
        if (leaveOnError) channel.leave();
        resolve({ status: "error", response });
      })
      .receive("timeout", () => resolve({ status: "timeout", response: {} }));
  });
}

export function pushOnce(channel: Channel, event: string, payload: object): Promise<Reply> {
  return new Promise((resolve) => {
    channel
      .push(event, payload)
      .receive("ok", (response: Record<string, unknown>) => resolve({ status: "ok", response }))
      .receive("error", (response: Record<string, unknown>) => resolve({ status: "error", response }))
      .receive("timeout", () => resolve({ status: "timeout", response: {} }));
  });
}

/** Resolves when `check` holds; fails the test with `what` if it never does within the suite's budget. */
export function until(check: () => boolean, what: string, limitMs = 5000): Promise<void> {
  return holds(check, `never happened: ${what}`, limitMs);
}

/** `until` for a check that must ask something asynchronous (a count kept in Redis). */
export function untilAsync(check: () => Promise<boolean>, what: string, limitMs = 5000): Promise<void> {
  return holds(check, `never happened: ${what}`, limitMs);
}

export function testEvent(sequence: number, extra: Record<string, unknown> = {}) {
  return { event_id: formatEventId(sequence), type: "session_created", session_id: `s${sequence}`, ...extra };
}

/** A device as the server would register it: a token in clear and its hash. */
export function device(deviceId: string) {
  const token = `token-${deviceId}-${"x".repeat(40)}`;
  return { deviceId, token, grant: { device_id: deviceId, token_hash: sha256Hex(token) } };
}

export const CREDENTIAL = "server-credential-".padEnd(48, "k");

export interface FakeServerOptions {
  serverId?: string;
  credential?: string;
  devices?: Array<{ device_id: string; token_hash: string; mode?: string; audience?: string }>;
  codes?: Array<{ code_hash: string; expires_at: number }>;
  cursor?: number;
  epoch?: string;
  /** What the server says GET /app-config.json answers for it. */
  appConfig?: Record<string, unknown>;
  /** What it speaks beyond the base protocol (`audience`: its grants and events carry audience tags). */
  features?: string[];
}

/** A server peer built with the phoenix client: joins `server:<id>` and can push events and grants. */
export async function fakeServer(url: string, options: FakeServerOptions = {}) {
  const serverId = options.serverId ?? "srv1";
  const socket = phoenixSocket(url);
  const params = {
    credential: options.credential ?? CREDENTIAL,
    epoch: options.epoch ?? "epoch-1",
    cursor: formatEventId(options.cursor ?? 0),
    devices: options.devices ?? [],
    codes: options.codes ?? [],
    ...(options.appConfig ? { app_config: options.appConfig } : {}),
    ...(options.features ? { features: options.features } : {}),
  };
  const channel = socket.channel(`server:${serverId}`, params);
  const pairRequests: Array<Record<string, unknown>> = [];
  channel.on("pair_request", (payload: Record<string, unknown>) => void pairRequests.push(payload));
  const joined = await joinOnce(channel);
  return { serverId, socket, channel, joined, pairRequests, params };
}

/** The server's answer to a pairing it redeemed: the new device, a token, the server's URL. */
export function pairedResult(requestId: string, deviceId = "dev_1") {
  return {
    request_id: requestId,
    status: "ok",
    device_id: deviceId,
    device_token: "t".repeat(43),
    server_url: "http://s",
  };
}

/** Makes the fake server redeem every pair_request it is sent, each as the device `deviceId()` names. */
export function answerPairings(server: { channel: Channel }, deviceId: () => string = () => "dev_1"): void {
  server.channel.on("pair_request", (request: { request_id: string }) => {
    server.channel.push("pair_result", pairedResult(request.request_id, deviceId()));
  });
}

/** Waits until the bridge holds the pairing code's grant (`what` names the wait in its failure). */
export function codeOnBridge(bridge: TestBridge, code: string, what = "code on the bridge"): Promise<void> {
  return until(() => bridge.core.registry.findCode(hashPairingCode(code)) !== undefined, what);
}
