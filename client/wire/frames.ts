// Phoenix Channels frames as they cross the bridge (docs/bridge.md), and the payloads of every topic's joins,
// replies and pushes. The bridge validates each incoming frame with these; the server's forwarder and the client
// library validate what the bridge answers. vsn 2.0.0 frames are JSON arrays, vsn 1.0.0 frames JSON objects.
import { z } from "zod";
import { anyEventSchema } from "./events.ts";
import { eventIdSchema } from "./event-id.ts";

/** Topic and event names are short: Phoenix's binary framing caps them at 255 bytes, we do too. */
const nameSchema = z.string().min(1).max(255);
const refSchema = z.string().min(1).max(64).nullable();
const payloadSchema = z.record(z.string(), z.unknown());

/** vsn 2.0.0: `[join_ref, ref, topic, event, payload]`. */
export const arrayFrameSchema = z.tuple([refSchema, refSchema, nameSchema, nameSchema, payloadSchema]);

/** vsn 1.0.0: `{topic, event, payload, ref, join_ref?}`. */
export const objectFrameSchema = z.object({
  topic: nameSchema,
  event: nameSchema,
  payload: payloadSchema,
  ref: refSchema,
  join_ref: refSchema.optional(),
});

/** One frame, whatever its vsn, as both sides handle it. */
export interface Frame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

export const replyPayloadSchema = z.object({
  status: z.enum(["ok", "error"]),
  response: payloadSchema,
});

/**
 * Largest frame the bridge accepts from any peer (ws `maxPayload`); a larger one closes the socket with 1009. The
 * bridge's config and the server's forwarder both read it from here.
 */
export const MAX_FRAME_BYTES = 1024 * 1024;

/**
 * Largest serialized event (UTF-8 bytes of `JSON.stringify(event)`) the forwarder pushes whole. The rest of a
 * `session_event` frame (refs, topic, event name, `{"event": }`) is well under the 64 KiB left over.
 */
export const MAX_EVENT_BYTES = MAX_FRAME_BYTES - 64 * 1024;

// Pairing codes: Crockford base32 (no I, L, O, U), typed in groups of five. Normalising forgives what people type.
export const PAIRING_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Uppercases, drops separators and maps the look-alikes Crockford allows (O→0, I/L→1). */
export function normalizePairingCode(input: string): string {
  return input
    .toUpperCase()
    .replace(/[\s-]/g, "")
    .replace(/O/g, "0")
    .replace(/[IL]/g, "1");
}

// --- topic `pairing` -------------------------------------------------------------------------------------
export const pairingJoinParamsSchema = z.object({
  code: z.string().min(1).max(64),
  device_name: z.string().trim().min(1).max(100),
});
export type PairingJoinParams = z.infer<typeof pairingJoinParamsSchema>;

export const pairingErrorReasonSchema = z.enum(["invalid_code", "expired", "rate_limited", "server_unavailable", "invalid_params"]);
export type PairingErrorReason = z.infer<typeof pairingErrorReasonSchema>;

export const pairingOkSchema = z.object({
  server_id: z.string(),
  device_id: z.string(),
  device_token: z.string(),
  server_url: z.string(),
});
export type PairingOk = z.infer<typeof pairingOkSchema>;

// --- topic `events:server:<id>` ------------------------------------------------------------------------------
/**
 * `since_id`: the app's cursor; `epoch`: the store that cursor belongs to (`GET /events` answers it). A cursor of
 * another epoch is never replayed: the server's store was reset and its ids started over.
 */
export const eventsJoinParamsSchema = z.object({ since_id: eventIdSchema.optional(), epoch: z.string().min(1).max(100).optional() });
export type EventsJoinParams = z.infer<typeof eventsJoinParamsSchema>;

/**
 * `complete`: every event after since_id was replayed; `gap`: fill it over HTTP (also when the join's epoch is not
 * the server's current one); `none`: no since_id given. `epoch`: the server's current store as the bridge knows it
 * (null before the server joined since the bridge started; absent from older bridges).
 */
export const eventsJoinOkSchema = z.object({
  replay: z.enum(["complete", "gap", "none"]),
  replayed: z.number().int().nonnegative(),
  last_event_id: eventIdSchema.nullable(),
  epoch: z.string().nullable().optional(),
});
export type EventsJoinOk = z.infer<typeof eventsJoinOkSchema>;

export const sessionEventPayloadSchema = z.object({ event: anyEventSchema });
export type SessionEventPayload = z.infer<typeof sessionEventPayloadSchema>;

/**
 * Server → bridge `session_event`: the event, and `after`, the id the forwarder pushed before it on this join (the
 * join's `resume_after` for the first). An `after` beyond what the bridge received is a hole it must not replay
 * over. Optional: a server that omits it is taken at its word, as before. Apps never see `after`.
 */
export const serverSessionEventSchema = sessionEventPayloadSchema.extend({ after: eventIdSchema.optional() });

/**
 * What the forwarder pushes in place of an event whose serialization passes MAX_EVENT_BYTES: the common fields and
 * `truncated: true`. It keeps the event's place in the sequence; the client library fetches the whole event over
 * `GET /events` and delivers that, never the stub.
 */
export const truncatedEventSchema = z.looseObject({
  event_id: eventIdSchema,
  type: z.string().min(1),
  session_id: z.string().optional(),
  request_id: z.string().optional(),
  truncated: z.literal(true),
});
export type TruncatedEvent = z.infer<typeof truncatedEventSchema>;

/** The stub that stands for `event` (the forwarder measures; this only builds). */
export function truncatedStubOf(event: { event_id: string; type: string; session_id?: string; request_id?: string }): TruncatedEvent {
  return {
    event_id: event.event_id,
    type: event.type,
    ...(event.session_id !== undefined ? { session_id: event.session_id } : {}),
    ...(event.request_id !== undefined ? { request_id: event.request_id } : {}),
    truncated: true,
  };
}

export function isTruncatedEvent(event: object): event is TruncatedEvent {
  return (event as { truncated?: unknown }).truncated === true;
}

// --- topic `server:<id>` (the server's own channel) ----------------------------------------------------------
export const deviceGrantSchema = z.object({ device_id: z.string().min(1).max(100), token_hash: z.string().regex(/^[0-9a-f]{64}$/) });
export type DeviceGrant = z.infer<typeof deviceGrantSchema>;

export const codeGrantSchema = z.object({ code_hash: z.string().regex(/^[0-9a-f]{64}$/), expires_at: z.number().int() });
export type CodeGrant = z.infer<typeof codeGrantSchema>;

/** The server's join: its credential, where it resumes, and the full sets of device tokens and live codes. */
export const serverJoinParamsSchema = z.object({
  credential: z.string().min(32).max(200),
  epoch: z.string().min(1).max(100),
  cursor: eventIdSchema,
  devices: z.array(deviceGrantSchema).max(10_000),
  codes: z.array(codeGrantSchema).max(10_000),
});
export type ServerJoinParams = z.infer<typeof serverJoinParamsSchema>;

/** The bridge tells the server after which event id to continue (it may already hold events the server never saw acked). */
export const serverJoinOkSchema = z.object({ resume_after: eventIdSchema });

/** Server → bridge `grants`: replaces the device and code sets (sent on every change). */
export const grantsPayloadSchema = z.object({ devices: z.array(deviceGrantSchema).max(10_000), codes: z.array(codeGrantSchema).max(10_000) });

/** Bridge → server `pair_request`: an app joined `pairing` with a code this server registered. */
export const pairRequestSchema = z.object({ request_id: z.string(), code: z.string(), device_name: z.string() });
export type PairRequest = z.infer<typeof pairRequestSchema>;

/**
 * Bridge → server `devices_seen`: devices with a socket on the bridge lately (the device list's last_seen_at), and
 * `connected`, the whole set of this server's devices with a socket open right now (the list's `connected`).
 */
export const devicesSeenSchema = z.object({
  device_ids: z.array(z.string().min(1).max(100)).max(10_000),
  connected: z.array(z.string().min(1).max(100)).max(10_000).optional(),
});
export type DevicesSeen = z.infer<typeof devicesSeenSchema>;

/** Server → bridge `pair_result`: the answer the bridge hands to the waiting app. */
export const pairResultSchema = z.union([
  z.object({ request_id: z.string(), status: z.literal("ok"), device_id: z.string(), device_token: z.string(), server_url: z.string() }),
  z.object({ request_id: z.string(), status: z.literal("error"), reason: pairingErrorReasonSchema }),
]);
export type PairResult = z.infer<typeof pairResultSchema>;

// The close codes live in close-codes.ts (the one table of code, meaning, reconnect, forget token).
export { BRIDGE_CLOSE } from "./close-codes.ts";
