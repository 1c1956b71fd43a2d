// The bridge's settings: environment variables (DESIGN.md "Start") validated with zod, plus the limits tests
// shrink. One line naming the variable and the problem when a value is bad.
import { join } from "node:path";
import { z } from "zod";
import { MAX_FRAME_BYTES } from "../client/wire/frames.ts";
import { DEFAULT_MAX_SOCKETS, readFdLimit, socketCapFor } from "./socket/fd-limit.ts";

/** Payload kept per server for replay (BRIDGE_REPLAY_BYTES): 16 MiB. */
export const DEFAULT_REPLAY_BYTES = 16 * 1024 * 1024;

const envSchema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  BRIDGE_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  DATA_DIR: z.string().min(1).default("./data"),
  BRIDGE_REPLAY_EVENTS: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  BRIDGE_REPLAY_BYTES: z.coerce.number().int().min(0).max(1024 * 1024 * 1024).default(DEFAULT_REPLAY_BYTES),
  /** Unset: derived from the file-descriptor limit (socket/fd-limit.ts). */
  BRIDGE_MAX_SOCKETS: z.coerce.number().int().min(1).max(10_000_000).optional(),
  BRIDGE_MAX_SOCKETS_PER_DEVICE: z.coerce.number().int().min(1).max(10_000).default(8),
  BRIDGE_MAX_SERVERS: z.coerce.number().int().min(1).max(100_000).default(100),
  /** The bridge's endpoint as apps reach it (a proxy, a public name): ws(s)://host[:port]/socket. Empty = unset. */
  BRIDGE_PUBLIC_URL: z
    .string()
    .url()
    .refine((url) => /^wss?:\/\//.test(url), "must be a ws:// or wss:// URL (the endpoint apps are given)")
    .optional()
    .or(z.literal("").transform(() => undefined)),
});

export interface BridgeConfig {
  host: string;
  port: number;
  /** BRIDGE_PUBLIC_URL: the endpoint apps are given when it differs from where the bridge listens. */
  publicUrl?: string | undefined;
  /** Where the bridge keeps its durable state (server credentials and device token hashes). */
  dataDir: string;
  /** Events kept per server for replay on rejoin. */
  replayEvents: number;
  /** Payload kept per server for replay (`payloadJson.length` summed); the oldest events go past either bound. */
  replayBytes: number;
  /** Server ids registered in all (trust on first use); a join for a new id past this is refused `registration_closed`. */
  maxServers: number;
  /** New server ids one address may register per window; more are refused `rate_limited`. */
  serverRegistrationsPerAddress: number;
  serverRegistrationWindowMs: number;
  /** Open sockets allowed in all (~16 KB and a file descriptor each); more are refused with 503 before the upgrade. */
  maxSockets: number;
  /** Open sockets one paired device token may hold; its next one is refused with 429 before the upgrade. */
  maxSocketsPerDevice: number;
  /** Open sockets allowed per address without a paired device's token; more are refused with 429. */
  maxAnonymousSocketsPerAddress: number;
  /** Largest frame accepted from a peer, in bytes; larger ones close the socket with 1009. */
  maxFrameBytes: number;
  /** Channels one socket may hold (Phoenix's own cap is 100). */
  maxChannelsPerSocket: number;
  /** A socket silent for longer than this is closed: the client heartbeats every 30 s. */
  idleTimeoutMs: number;
  /** A socket whose unsent bytes pass this is a slow consumer and is closed. */
  maxBufferedBytes: number;
  /** How long a pairing join waits for the server's answer. */
  pairingTimeoutMs: number;
  /**
   * Failed pairing attempts allowed per address, and overall, per window. Past the overall budget, an address with
   * no failure in the window is still checked; past `pairingFailingAddresses` distinct failing addresses, none is.
   */
  pairingFailuresPerAddress: number;
  pairingFailuresOverall: number;
  pairingFailingAddresses: number;
  pairingWindowMs: number;
  /** How long a long-poll GET is held when nothing is queued (Phoenix's window_ms); a session unpolled for 1.5× ends. */
  longPollWindowMs: number;
  /** Log records one peer (a socket, or an address before the upgrade) may write per window; the rest are summarized. */
  logLinesPerPeer: number;
  logWindowMs: number;
}

/** `fdLimit`: the process's file-descriptor limit, from which the default socket cap is derived (tests pass one). */
export function loadBridgeConfig(env: NodeJS.ProcessEnv = process.env, fdLimit: number | undefined = readFdLimit()): BridgeConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join(".")}: ${issue.message}`);
  }
  const e = parsed.data;
  return defaultBridgeConfig({
    host: e.HOST,
    port: e.BRIDGE_PORT,
    publicUrl: e.BRIDGE_PUBLIC_URL,
    dataDir: join(e.DATA_DIR, "bridge"),
    replayEvents: e.BRIDGE_REPLAY_EVENTS,
    replayBytes: e.BRIDGE_REPLAY_BYTES,
    maxSockets: e.BRIDGE_MAX_SOCKETS ?? socketCapFor(fdLimit),
    maxSocketsPerDevice: e.BRIDGE_MAX_SOCKETS_PER_DEVICE,
    maxServers: e.BRIDGE_MAX_SERVERS,
  });
}

export function defaultBridgeConfig(overrides: Partial<BridgeConfig> & { dataDir: string }): BridgeConfig {
  return {
    host: "127.0.0.1",
    port: 4000,
    replayEvents: 1000,
    replayBytes: DEFAULT_REPLAY_BYTES,
    maxSockets: DEFAULT_MAX_SOCKETS,
    maxSocketsPerDevice: 8,
    maxServers: 100,
    serverRegistrationsPerAddress: 5,
    serverRegistrationWindowMs: 60 * 60_000,
    maxAnonymousSocketsPerAddress: 32,
    maxFrameBytes: MAX_FRAME_BYTES,
    maxChannelsPerSocket: 100,
    idleTimeoutMs: 60_000,
    maxBufferedBytes: 4 * 1024 * 1024,
    pairingTimeoutMs: 8_000,
    pairingFailuresPerAddress: 10,
    pairingFailuresOverall: 100,
    pairingFailingAddresses: 1000,
    pairingWindowMs: 60_000,
    longPollWindowMs: 10_000,
    logLinesPerPeer: 20,
    logWindowMs: 60_000,
    ...overrides,
  };
}
