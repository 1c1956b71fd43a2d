// The bridge's settings, each default written once, in `bridgeConfigSchema`. The environment (README.md "Running",
// this page's variables) is parsed through the same fields, so a bad value is refused with one line naming the
// variable and the problem; an absent one takes the schema's default. Tests build a config from the schema too
// (`defaultBridgeConfig`), where an unknown key is an error naming it.
import { join } from "node:path";
import { z } from "zod";
import { MAX_FRAME_BYTES } from "../client/wire/frames.ts";
import { clusterConfigSchema, redisUrlSchema } from "./cluster/cluster-config.ts";
import { relayConfigSchema } from "./relay/relay-config.ts";
import { DEFAULT_MAX_SOCKETS, readFdLimit, socketCapFor } from "./socket/fd-limit.ts";

/** Payload kept per server for replay (BRIDGE_REPLAY_BYTES): 16 MiB. */
export const DEFAULT_REPLAY_BYTES = 16 * 1024 * 1024;

const count = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);

export const bridgeConfigSchema = z.strictObject({
  host: z.string().min(1).default("127.0.0.1"),
  port: count(0, 65535).default(4000),
  /** BRIDGE_PUBLIC_URL: the endpoint apps are given when it differs from where the bridge listens (a proxy, a public name). */
  publicUrl: z
    .string()
    .url()
    .refine((url) => /^wss?:\/\//.test(url), "must be a ws:// or wss:// URL (the endpoint apps are given)")
    .optional(),
  /** Where the bridge keeps its durable state (server credentials and device token hashes). */
  dataDir: z.string().min(1),
  /** Events kept per server for replay on rejoin. */
  replayEvents: count(0, 1_000_000).default(1000),
  /** Payload kept per server for replay (its events' forms' lengths summed); the oldest events go past either bound. */
  replayBytes: count(0, 1024 * 1024 * 1024).default(DEFAULT_REPLAY_BYTES),
  /** Server ids registered in all (trust on first use); a join for a new id past this is refused `registration_closed`. */
  maxServers: count(1, 100_000).default(100),
  /** New server ids one address may register per window; more are refused `rate_limited`. */
  serverRegistrationsPerAddress: count(1).default(5),
  serverRegistrationWindowMs: count(1).default(60 * 60_000),
  /** Open sockets allowed in all (~16 KB and a file descriptor each); more are refused with 503 before the upgrade. */
  maxSockets: count(1, 10_000_000).default(DEFAULT_MAX_SOCKETS),
  /** Open sockets one paired device token may hold; its next one is refused with 429 before the upgrade. */
  maxSocketsPerDevice: count(1, 10_000).default(8),
  /** Open sockets allowed per address without a paired device's token; more are refused with 429. */
  maxAnonymousSocketsPerAddress: count(1).default(32),
  /** Largest frame accepted from a peer, in bytes; larger ones close the socket with 1009. */
  maxFrameBytes: count(1).default(MAX_FRAME_BYTES),
  /** Channels one socket may hold (Phoenix's own cap is 100). */
  maxChannelsPerSocket: count(1).default(100),
  /** A socket silent for longer than this is closed: the client heartbeats every 30 s. */
  idleTimeoutMs: count(1).default(60_000),
  /**
   * A server's link silent for longer than this is down (closed, its apps told offline): the forwarder heartbeats
   * every 5 s, so two missed heartbeats and a second's slack; with the sweep (a fifteenth of it) and the push to the
   * app, a link whose packets are dropped without a close reads offline within 15 s (measured: docs/benchmarks.md).
   */
  serverLinkTimeoutMs: count(1).default(11_000),
  /** Time from an HTTP request's first byte to its last header. */
  headersTimeoutMs: count(1).default(10_000),
  /**
   * Time to receive a whole HTTP request, body included (a long-poll POST is at most 4 frames' worth): a body sent at
   * a trickle is cut (408) instead of holding its connection and buffer. A held long-poll GET is not counted: its
   * request is in once its headers are.
   */
  requestTimeoutMs: count(1).default(30_000),
  /** A socket whose unsent bytes pass this is a slow consumer and is closed. */
  maxBufferedBytes: count(1).default(4 * 1024 * 1024),
  /** How long a pairing join waits for the server's answer. */
  pairingTimeoutMs: count(1).default(8_000),
  /**
   * Failed pairing attempts allowed per address, and overall, per window. Past the overall budget, an address with
   * no failure in the window is still checked; past `pairingFailingAddresses` distinct failing addresses, none is.
   */
  pairingFailuresPerAddress: count(1).default(10),
  pairingFailuresOverall: count(1).default(100),
  pairingFailingAddresses: count(1).default(1000),
  pairingWindowMs: count(1).default(60_000),
  /** Log records one peer (a socket, or an address before the upgrade) may write per window; the rest are summarized. */
  logLinesPerPeer: count(1).default(20),
  logWindowMs: count(1).default(60_000),
  /** The API relay's timeout and rate bounds; unset keys take bridge/relay/relay-config.ts's defaults. */
  relay: relayConfigSchema.default({}),
  /** How long a long-poll GET is held when nothing is queued (Phoenix's window_ms); a session unpolled for 1.5× ends. */
  longPollWindowMs: count(1).default(10_000),
  /** BRIDGE_REDIS_URL (cluster.redisUrl) and the cluster's key prefix and timings; no redisUrl: the single node. */
  cluster: clusterConfigSchema.prefault({}),
});

export type BridgeConfig = z.output<typeof bridgeConfigSchema>;

/** The config keys the environment sets, by variable. HOST and DATA_DIR are shared with the server. */
const ENV_KEYS = {
  HOST: "host",
  BRIDGE_PORT: "port",
  BRIDGE_REPLAY_EVENTS: "replayEvents",
  BRIDGE_REPLAY_BYTES: "replayBytes",
  /** Unset: derived from the file-descriptor limit (socket/fd-limit.ts). */
  BRIDGE_MAX_SOCKETS: "maxSockets",
  BRIDGE_MAX_SOCKETS_PER_DEVICE: "maxSocketsPerDevice",
  BRIDGE_MAX_SERVERS: "maxServers",
  BRIDGE_PUBLIC_URL: "publicUrl",
} as const satisfies Record<string, keyof BridgeConfig>;

/** DATA_DIR's default; the bridge keeps its state in `bridge/` under it. */
const DEFAULT_DATA_DIR = "./data";

/** Each variable read as its config field, coerced from text: a value out of range is refused like a bad config. */
const envSchema = z.object({
  ...Object.fromEntries(
    Object.entries(ENV_KEYS).map(([variable, key]) => [variable, fromText(bridgeConfigSchema.shape[key].unwrap())]),
  ),
  DATA_DIR: z.string().min(1).optional(),
  BRIDGE_REDIS_URL: redisUrlSchema.optional(),
});

/** A string field stays a string; a number field is coerced from the variable's text first. */
function fromText(field: z.ZodString | z.ZodNumber) {
  return (field instanceof z.ZodNumber ? z.coerce.number().pipe(field) : field).optional();
}

/** `fdLimit`: the process's file-descriptor limit, from which the default socket cap is derived (tests pass one). */
export function loadBridgeConfig(
  env: NodeJS.ProcessEnv = process.env,
  fdLimit: number | undefined = readFdLimit(),
): BridgeConfig {
  // An empty BRIDGE_PUBLIC_URL means unset, as the server reads it.
  // An empty BRIDGE_REDIS_URL means unset too: the single node.
  const parsed = envSchema.safeParse({
    ...env,
    BRIDGE_PUBLIC_URL: env.BRIDGE_PUBLIC_URL || undefined,
    BRIDGE_REDIS_URL: env.BRIDGE_REDIS_URL || undefined,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join(".")}: ${issue.message}`);
  }
  const values = parsed.data as Record<string, string | number | undefined>;
  const fromEnv = Object.fromEntries(
    Object.entries(ENV_KEYS).flatMap(([variable, key]) =>
      values[variable] === undefined ? [] : [[key, values[variable]]],
    ),
  );
  return bridgeConfigSchema.parse({
    maxSockets: socketCapFor(fdLimit),
    ...fromEnv,
    ...(parsed.data.BRIDGE_REDIS_URL === undefined ? {} : { cluster: { redisUrl: parsed.data.BRIDGE_REDIS_URL } }),
    dataDir: join(parsed.data.DATA_DIR ?? DEFAULT_DATA_DIR, "bridge"),
  });
}

/** A config from the schema's defaults and `overrides`; an unknown or invalid override is an error naming its key. */
export function defaultBridgeConfig(overrides: Partial<BridgeConfig> & { dataDir: string }): BridgeConfig {
  const parsed = bridgeConfigSchema.safeParse(overrides);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(
      `bridge config ${[...issue.path, ...("keys" in issue ? issue.keys : [])].join(".")}: ${issue.message}`,
    );
  }
  return parsed.data;
}
