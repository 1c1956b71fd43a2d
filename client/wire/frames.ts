// Phoenix Channels frames as they cross the bridge (docs/bridge.md), and the payloads of every topic's joins,
// replies and pushes. The bridge validates each incoming frame with these; the server's forwarder and the client
// library validate what the bridge answers. vsn 2.0.0 frames are JSON arrays, vsn 1.0.0 frames JSON objects.
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";
import { anyEventSchema } from "./events.ts";
import { appConfigSchema } from "./app-config.ts";
import { eventIdSchema } from "./event-id.ts";
import { deviceModeSchema, publicKeySchema, sealedCredentialsSchema, sealedEventSchema, sealedSchema } from "./e2e.ts";
import { PUT_ONLY_FOR_PARTS, relayMethodFits, relayMethodSchema } from "./relay-methods.ts";
import { AUDIENCE_FEATURE, audiencePushSchema, audienceTagSchema } from "./audience.ts";
import { relayPathSchema } from "./relay-path.ts";

/** Topic and event names are short: Phoenix's binary framing caps them at 255 bytes, we do too. */
const nameSchema = z.string().min(1).max(255);
const refSchema = z.string().min(1).max(64).nullable();
const payloadSchema = lazySchema(() => z.record(z.string(), z.unknown()));

/** vsn 2.0.0: `[join_ref, ref, topic, event, payload]`. */
export const arrayFrameSchema = lazySchema(() =>
  z.tuple([refSchema, refSchema, nameSchema, nameSchema, payloadSchema]),
);

/** vsn 1.0.0: `{topic, event, payload, ref, join_ref?}`. */
export const objectFrameSchema = lazySchema(() =>
  z.object({
    topic: nameSchema,
    event: nameSchema,
    payload: payloadSchema,
    ref: refSchema,
    join_ref: refSchema.optional(),
  }),
);

/** One frame, whatever its vsn, as both sides handle it. */
export interface Frame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: Record<string, unknown>;
}

export const replyPayloadSchema = lazySchema(() =>
  z.object({
    status: z.enum(["ok", "error"]),
    response: payloadSchema,
  }),
);

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
  return input.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
}

// --- topic `pairing` -------------------------------------------------------------------------------------
export const pairingJoinParamsSchema = lazySchema(() =>
  z.object({
    code: z.string().min(1).max(64),
    device_name: z.string().trim().min(1).max(100),
    /** The device's X25519 public key: the device pairs end-to-end encrypted (docs/security.md); absent: plain. */
    device_key: publicKeySchema.optional(),
    /**
     * The server the code is for, when the app knows it (`GET /app-config.json`, a link's own parameter). A code the
     * bridge has not heard of, for a server whose link is not up, is then `server_unavailable` (retryable): the server
     * made it before its first link and sends it when it joins. Without it such a code is `invalid_code`.
     */
    server_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional(),
  }),
);
export type PairingJoinParams = z.infer<typeof pairingJoinParamsSchema>;

export const pairingErrorReasonSchema = z.enum([
  "invalid_code",
  "expired",
  "rate_limited",
  "server_unavailable",
  "invalid_params",
  "e2e_required",
]);
export type PairingErrorReason = z.infer<typeof pairingErrorReasonSchema>;

/** The credentials in clear: what a device paired without a key gets, the sealed ones' fields and its person. */
export const pairingOkSchema = lazySchema(() =>
  sealedCredentialsSchema.unwrap().extend({
    /** The person the device now belongs to (docs/people.md); older servers omit it. */
    person_id: z.string().optional(),
  }),
);
export type PairingOk = z.infer<typeof pairingOkSchema>;

/**
 * The ok reply to a pairing join with `device_key`: no token in clear. `sealed` holds the credentials (token
 * included) under the key the server's secret and the device's key derive: it opens only against the server key the
 * device trusts (pair_url's `key`), so it proves the answer came from that server. `server_key` is what the bridge
 * says the server's key is, trusted only when pairing by typed code (its fingerprint is shown to compare).
 */
export const pairingSealedOkSchema = lazySchema(() =>
  z.object({
    server_id: z.string(),
    device_id: z.string(),
    server_url: z.string(),
    person_id: z.string().optional(),
    server_key: publicKeySchema,
    sealed: sealedSchema,
  }),
);
export type PairingSealedOk = z.infer<typeof pairingSealedOkSchema>;

// --- topic `events:server:<id>` ------------------------------------------------------------------------------
/**
 * `since_id`: the app's cursor; `epoch`: the store that cursor belongs to (`GET /events` answers it). A cursor of
 * another epoch is never replayed: the server's store was reset and its ids started over.
 */
export const eventsJoinParamsSchema = lazySchema(() =>
  z.object({
    since_id: eventIdSchema.optional(),
    epoch: z.string().min(1).max(100).optional(),
  }),
);
export type EventsJoinParams = z.infer<typeof eventsJoinParamsSchema>;

/**
 * `complete`: every event after since_id was replayed; `gap`: fill it over HTTP (also when the join's epoch is not
 * the server's current one); `none`: no since_id given. `epoch`: the server's current store as the bridge knows it
 * (null before the server joined since the bridge started; absent from older bridges).
 */
export const eventsJoinOkSchema = lazySchema(() =>
  z.object({
    replay: z.enum(["complete", "gap", "none"]),
    replayed: z.number().int().nonnegative(),
    last_event_id: eventIdSchema.nullable(),
    epoch: z.string().nullable().optional(),
    /** Whether the server's link to the bridge is open now (docs/client.md "Server status"); absent from older bridges. */
    server_online: z.boolean().optional(),
  }),
);
export type EventsJoinOk = z.infer<typeof eventsJoinOkSchema>;

export const sessionEventPayloadSchema = lazySchema(() => z.object({ event: anyEventSchema }));
export type SessionEventPayload = z.infer<typeof sessionEventPayloadSchema>;

/**
 * Server → bridge `session_event`: the event, and `after`, the id the forwarder pushed before it on this join (the
 * join's `resume_after` for the first). An `after` beyond what the bridge received is a hole it must not replay
 * over. Optional: a server that omits it is taken at its word, as before. Apps never see `after`.
 */
export const serverSessionEventSchema = lazySchema(() =>
  z
    .object({
      /** The event in clear: only while a plain device is paired (docs/security.md). */
      event: anyEventSchema.optional(),
      /** The event sealed once for every encrypting device. */
      sealed: sealedEventSchema.optional(),
      after: eventIdSchema.optional(),
    })
    .refine(
      (payload) => payload.event !== undefined || payload.sealed !== undefined,
      "a session_event carries event, sealed or both",
    )
    .refine(
      (payload) => !payload.event || !payload.sealed || payload.event.event_id === payload.sealed.event_id,
      "event and sealed name one event id",
    ),
);

/**
 * Server → bridge `session_event` from a server that speaks audiences (client/wire/audience.ts): the event's id, its
 * audience tags and its forms, and `after` as above. A push without `audience` from such a server reaches nobody.
 */
export const audienceSessionEventSchema = lazySchema(() =>
  audiencePushSchema.and(z.object({ after: eventIdSchema.optional() })),
);
export type AudienceSessionEvent = z.infer<typeof audienceSessionEventSchema>;

/** Bridge → encrypting device `sealed_event`: the sealed event alone. */
export const sealedEventPushSchema = sealedEventSchema;

/**
 * What the forwarder pushes in place of an event whose serialization passes MAX_EVENT_BYTES: the common fields and
 * `truncated: true`. It keeps the event's place in the sequence; the client library fetches the whole event over
 * `GET /events` and delivers that, never the stub.
 */
export const truncatedEventSchema = lazySchema(() =>
  z.looseObject({
    event_id: eventIdSchema,
    type: z.string().min(1),
    session_id: z.string().optional(),
    request_id: z.string().optional(),
    truncated: z.literal(true),
  }),
);
export type TruncatedEvent = z.infer<typeof truncatedEventSchema>;

/** The stub that stands for `event` (the forwarder measures; this only builds). */
export function truncatedStubOf(event: {
  event_id: string;
  type: string;
  session_id?: string;
  request_id?: string;
}): TruncatedEvent {
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
/** `mode`: what the device is sent (absent: plain, as from servers before end-to-end encryption). */
export const deviceGrantSchema = lazySchema(() =>
  z.object({
    device_id: z.string().min(1).max(100),
    token_hash: z.string().regex(/^[0-9a-f]{64}$/),
    mode: deviceModeSchema.optional(),
    /**
     * The device's audience tag (its person's, client/wire/audience.ts). From a server that speaks audiences a grant
     * without one is sent nothing; from one that does not, the bridge gives it the sole audience.
     */
    audience: audienceTagSchema.optional(),
  }),
);
export type DeviceGrant = z.infer<typeof deviceGrantSchema>;

export const codeGrantSchema = lazySchema(() =>
  z.object({
    code_hash: z.string().regex(/^[0-9a-f]{64}$/),
    expires_at: z.number().int(),
  }),
);
export type CodeGrant = z.infer<typeof codeGrantSchema>;

/** The server's join: its credential, where it resumes, and the full sets of device tokens and live codes. */
export const serverJoinParamsSchema = lazySchema(() =>
  z.object({
    credential: z.string().min(32).max(200),
    epoch: z.string().min(1).max(100),
    cursor: eventIdSchema,
    devices: z.array(deviceGrantSchema).max(10_000),
    codes: z.array(codeGrantSchema).max(10_000),
    /** What `GET /app-config.json` answers for this server (on the bridge too, when it serves the server's app). */
    app_config: appConfigSchema.optional(),
    /** What the server speaks beyond the base protocol: `audience` (its events and grants carry audience tags). */
    features: z.array(z.string().min(1).max(64)).max(20).optional(),
  }),
);
export type ServerJoinParams = z.infer<typeof serverJoinParamsSchema>;

/** The bridge tells the server after which event id to continue (it may already hold events the server never saw acked). */
export const serverJoinOkSchema = lazySchema(() =>
  z.object({
    resume_after: eventIdSchema,
    /** What the bridge speaks beyond the base protocol (absent from bridges before audiences). */
    features: z.array(z.string()).optional(),
  }),
);

/** What this bridge speaks beyond the base protocol, in its `server:<id>` join reply. */
export const BRIDGE_FEATURES: readonly string[] = [AUDIENCE_FEATURE];

/** Server → bridge `grants`: replaces the device and code sets (sent on every change). */
export const grantsPayloadSchema = lazySchema(() =>
  z.object({
    devices: z.array(deviceGrantSchema).max(10_000),
    codes: z.array(codeGrantSchema).max(10_000),
  }),
);

/** Event ids one `forget` names at most: a deleted session's ids go in as many frames as they need. */
export const MAX_FORGET_IDS = 1000;

/**
 * Server → bridge `forget`: a deleted session's events the bridge may still hold for replay. It drops them (its
 * buffer, and a cluster's shared history), keeping their places in the chain of ids so a replay across them stays
 * complete. The only way a server holding only encrypting devices can name them: their `session_deleted` is sealed.
 */
export const forgetPayloadSchema = lazySchema(() =>
  z.object({ event_ids: z.array(eventIdSchema).min(1).max(MAX_FORGET_IDS) }).strict(),
);

/** Bridge → server `pair_request`: an app joined `pairing` with a code this server registered. */
export const pairRequestSchema = lazySchema(() =>
  z.object({
    request_id: z.string(),
    code: z.string(),
    device_name: z.string(),
    device_key: publicKeySchema.optional(),
  }),
);
export type PairRequest = z.infer<typeof pairRequestSchema>;

/**
 * Bridge → server `devices_seen`: devices with a socket on the bridge lately (the device list's last_seen_at), and
 * `connected`, the whole set of this server's devices with a socket open right now (the list's `connected`).
 */
export const devicesSeenSchema = lazySchema(() =>
  z.object({
    device_ids: z.array(z.string().min(1).max(100)).max(10_000),
    connected: z.array(z.string().min(1).max(100)).max(10_000).optional(),
  }),
);
export type DevicesSeen = z.infer<typeof devicesSeenSchema>;

/** Server → bridge `pair_result`: the answer the bridge hands to the waiting app. */
export const pairResultSchema = lazySchema(() =>
  z.union([
    z.object({
      request_id: z.string(),
      status: z.literal("ok"),
      device_id: z.string(),
      device_token: z.string(),
      server_url: z.string(),
      person_id: z.string().optional(),
    }),
    // A device that paired with a key: its token only inside `sealed` (pairingSealedOkSchema).
    z.object({
      request_id: z.string(),
      status: z.literal("ok"),
      device_id: z.string(),
      server_url: z.string(),
      person_id: z.string().optional(),
      server_key: publicKeySchema,
      sealed: sealedSchema,
    }),
    z.object({ request_id: z.string(), status: z.literal("error"), reason: pairingErrorReasonSchema }),
  ]),
);
export type PairResult = z.infer<typeof pairResultSchema>;

// The close codes live in close-codes.ts (the one table of code, meaning, reconnect, forget token).
export { BRIDGE_CLOSE } from "./close-codes.ts";

// --- the API relay (`api` on `events:server:<id>`, `api_request`/`api_result` on `server:<id>`) -----------------
export { relayMethodSchema, relayMethodFits, type RelayMethod } from "./relay-methods.ts";
export { asksLongPoll, RELAY_MAX_PATH_LENGTH, relayPathSchema } from "./relay-path.ts";

/**
 * Largest relayed request or response body, in UTF-8 bytes of its JSON (a base64 body counted as its text): what
 * fits in one frame with its envelope, like an event (MAX_EVENT_BYTES). A larger one is `too_large`.
 */
export const RELAY_MAX_BODY_BYTES = MAX_EVENT_BYTES;

/** App → bridge `api`: one HTTP API call. Strict: an app names no device (the bridge knows which one it is). */
export const apiPushSchema = lazySchema(() =>
  z
    .strictObject({
      method: relayMethodSchema,
      path: relayPathSchema,
      body: z.unknown().optional(),
    })
    .refine(relayMethodFits, PUT_ONLY_FOR_PARTS),
);
export type ApiPush = z.infer<typeof apiPushSchema>;

/** Why a relayed call got no HTTP answer. */
export const relayErrorReasonSchema = z.enum([
  "server_unavailable",
  "timeout",
  "too_large",
  "rate_limited",
  "invalid_request",
]);
export type RelayErrorReason = z.infer<typeof relayErrorReasonSchema>;

/**
 * The HTTP answer, as the route gave it: its status and body (JSON), or for a route that answers bytes (an
 * attachment download) the bytes in base64 with `body_encoding: "base64"` and the `content_type`.
 */
export const relayAnswerSchema = lazySchema(() =>
  z.object({
    status: z.number().int().min(100).max(599),
    body: z.unknown(),
    content_type: z.string().max(200).optional(),
    body_encoding: z.literal("base64").optional(),
  }),
);
export type RelayAnswer = z.infer<typeof relayAnswerSchema>;

/** Bridge → server `api_request`: the call, with the device the bridge authenticated and the bridge's request id. */
export const apiRequestSchema = lazySchema(() =>
  z
    .strictObject({
      request_id: z.string().min(1).max(100),
      device_id: z.string().min(1).max(100),
      method: relayMethodSchema,
      path: relayPathSchema,
      body: z.unknown().optional(),
    })
    .refine(relayMethodFits, PUT_ONLY_FOR_PARTS),
);
export type ApiRequest = z.infer<typeof apiRequestSchema>;

/** Server → bridge `api_result`: the route's answer, or why there is none. */
export const apiResultSchema = lazySchema(() =>
  z.union([
    relayAnswerSchema.unwrap().extend({ request_id: z.string().min(1).max(100) }),
    z.object({ request_id: z.string().min(1).max(100), reason: relayErrorReasonSchema }),
  ]),
);
export type ApiResult = z.infer<typeof apiResultSchema>;

const utf8 = new TextEncoder();

/** UTF-8 bytes of a value's JSON (0 for undefined): how relayed bodies are measured on both sides (browsers too). */
export function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : utf8.encode(JSON.stringify(value)).length;
}
