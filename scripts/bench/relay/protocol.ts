// Messages between the relay benchmark's processes (IPC), validated like every other boundary.
import { z } from "zod";
import { useCipher, useRandom } from "../../../client/wire/crypto/index.ts";
import { processStats } from "../fanout/protocol.ts";
import { gcStats } from "./gc-meter.ts";
import { threadStats } from "./thread-meter.ts";

/** Which implementation each crypto seam uses in a child (client/wire/crypto: xchacha.ts, random.ts). */
export const seamsSchema = z.object({ cipher: z.enum(["noble", "openssl"]), random: z.enum(["platform", "pooled"]) });
export type Seams = z.infer<typeof seamsSchema>;

/** Every child answers these: start a phase (reset its CPU meter), and what it spent since. The server and the apps
 *  also take `seams` (answered `seams` once in use), so one run measures each optimisation with and without. */
const meterRequests = [z.object({ type: z.literal("phase") }), z.object({ type: z.literal("stats") })] as const;
const seamsRequest = z.object({ type: z.literal("seams"), seams: seamsSchema });
const seamsAnswer = z.object({ type: z.literal("seams"), cipher: z.string(), random: z.string() });
const statsMessage = z.object({ type: z.literal("stats"), stats: processStats });

export const toBridge = z.discriminatedUnion("type", [
  ...meterRequests,
  z.object({ type: z.literal("known"), token_hashes: z.array(z.string()) }),
]);
export const fromBridge = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), url: z.string() }),
  /** How many of the asked token hashes the bridge's registry grants (the server's `grants` arrived). */
  z.object({ type: z.literal("known"), count: z.number() }),
  statsMessage,
]);

/** A device paired with a key (end-to-end encryption): its token for the bridge, its id bound into each sealed call. */
const sealingDevice = z.object({ token: z.string(), device_id: z.string() });

export const toServer = z.discriminatedUnion("type", [
  ...meterRequests,
  seamsRequest,
  /** `devices` plain devices, and as many more paired with `device_key` (the encrypting apps' public key). */
  z.object({ type: z.literal("start"), bridge_url: z.string(), devices: z.number(), device_key: z.string() }),
  /** The cipher's own CPU per sealed call (open the call, seal the answer), timed alone in `batches` (cipher-cost.ts). */
  z.object({ type: z.literal("cipher"), batches: z.number().int().min(1).max(100) }),
]);
export const fromServer = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("ready"),
    url: z.string(),
    server_id: z.string(),
    path: z.string(),
    tokens: z.array(z.string()),
    e2e: z.object({ server_key: z.string(), devices: z.array(sealingDevice) }),
  }),
  /** The server's stats carry its garbage too (gc-meter.ts): what a sealed call allocates beyond a plain one. */
  statsMessage.extend({ gc: gcStats, threads: threadStats, floor_writes: z.number() }),
  seamsAnswer,
  z.object({ type: z.literal("cipher"), us_per_call: z.array(z.number()), in_place_us_per_call: z.array(z.number()) }),
]);

/**
 * `e2e_relay`: the relay as an encrypting app uses it, each call sealed to the server's key and its answer opened,
 * with the crypto seams the server ships with (OpenSSL's cipher, pooled random bytes), the apps opting in alike. The
 * same calls with one seam's optimisation off in the server and the apps: `e2e_relay_noble` (noble's cipher) and
 * `e2e_relay_platform` (a getRandomValues call per draw).
 */
export const routeSchema = z.enum(["direct", "relay", "e2e_relay", "e2e_relay_noble", "e2e_relay_platform"]);
export type Route = z.infer<typeof routeSchema>;

export const toApps = z.discriminatedUnion("type", [
  ...meterRequests,
  seamsRequest,
  z.object({
    type: z.literal("connect"),
    bridge_url: z.string(),
    server_url: z.string(),
    server_id: z.string(),
    path: z.string(),
    tokens: z.array(z.string()),
    e2e: z.object({ device_secret_key: z.string(), server_key: z.string(), devices: z.array(sealingDevice) }),
  }),
  /** `apps` of this process's apps each send their next call when the last answered, `total` calls in all. */
  z.object({
    type: z.literal("run"),
    route: routeSchema,
    apps: z.number().int().min(1),
    total: z.number().int().min(1),
  }),
]);
export type ToApps = z.infer<typeof toApps>;
export const fromApps = z.discriminatedUnion("type", [
  z.object({ type: z.literal("connected") }),
  /** Latencies in ms; `start` and `end` on the wall clock (performance.timeOrigin + now), comparable across processes. */
  z.object({ type: z.literal("ran"), latencies: z.array(z.number()), start: z.number(), end: z.number() }),
  statsMessage,
  seamsAnswer,
]);

/** Sets a child's seams as asked and answers what is in use; true when `message` was that request. */
export function answerSeams(message: { type: string; seams?: Seams }, send: (m: unknown) => void): boolean {
  if (message.type !== "seams" || !message.seams) return false;
  send({ type: "seams", cipher: useCipher(message.seams.cipher), random: useRandom(message.seams.random) });
  return true;
}

export type Meter = { reset(): void; read(): z.infer<typeof processStats> };

/** A child's answer to the meter requests; true when `message` was one. */
export function answerMeter(message: { type: string }, meter: Meter, send: (m: unknown) => void): boolean {
  if (message.type === "phase") meter.reset();
  else if (message.type === "stats") send({ type: "stats", stats: meter.read() });
  else return false;
  return true;
}
