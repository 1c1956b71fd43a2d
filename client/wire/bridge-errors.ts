// The bridge's refusals, declared once beside the HTTP codes (errors.ts) and the close codes (close-codes.ts): every
// `reason` of an error reply to a join or a push, where it is answered and what it means. The bridge refuses only
// with these (`refuse` takes a BridgeReason), and docs/errors.md is generated from this table.

export interface BridgeReasonRule {
  /** The joins or pushes answered with it. */
  where: string;
  meaning: string;
}

export const BRIDGE_REASONS = {
  // Phoenix's own spelling (with a space): the official client and Phoenix servers say it this way.
  "unmatched topic": {
    where: "any join; a push on a topic the socket has not joined",
    meaning: "no such topic, or not joined",
  },
  "too_many_channels": { where: "any join", meaning: "the socket already has 100 channels" },
  "invalid_params": {
    where: "join of `pairing`, `events:server:<id>`; the server's `grants`, `pair_result` pushes",
    meaning: "the params or payload do not match the wire schema",
  },
  "unauthorized": {
    where: "join of `events:server:<id>`, `server:<id>`",
    meaning:
      "no device token, an unknown or revoked one, another server's; or a wrong server credential. The library stops and forgets its token",
  },
  "already_connected": {
    where: "join of `server:<id>`",
    meaning: "the server credential was replayed while its channel is live",
  },
  "registration_closed": {
    where: "join of `server:<id>` for a new id",
    meaning: "the bridge serves `BRIDGE_MAX_SERVERS` servers already",
  },
  "rate_limited": {
    where: "join of `pairing`; join of `server:<id>` for a new id; an app's `api` push",
    meaning:
      "too many failed pairing attempts from this address (or overall), or too many new server ids from this address, in the window; or too many relayed calls in flight or per second, per socket or per server",
  },
  "invalid_code": {
    where: "join of `pairing`; the server's `pair_result`",
    meaning: "no live pairing code matches (wrong, or used already)",
  },
  "expired": {
    where: "join of `pairing`; the server's `pair_result`",
    meaning: "the pairing code's 10 minutes are over",
  },
  "server_unavailable": {
    where: "join of `pairing`; the server's `pair_result`; an app's `api` push",
    meaning:
      "the code's server is not connected, did not answer in time, left, or failed to redeem the code; or the relayed call's server is not connected or left with the call in flight",
  },
  "invalid_request": {
    where: "an app's `api` push; any push on `pairing`",
    meaning:
      "the relayed call is malformed (method, path, extra keys such as a device id), asks for a long-poll (`wait_ms`), comes from a token no longer granted, or comes from a socket that holds no device",
  },
  "timeout": {
    where: "an app's `api` push",
    meaning: "the server did not answer the relayed call within the relay's timeout (30 s)",
  },
  "too_large": {
    where: "an app's `api` push",
    meaning: "the relayed call's request or response body is over one frame (`RELAY_MAX_BODY_BYTES`)",
  },
  "read_only": {
    where: "an app's push on `events:server:<id>` other than `api`",
    meaning: "apps only receive on this topic, and call the API with `api`",
  },
  "invalid_event": {
    where: "the server's `session_event` push",
    meaning:
      "the payload is not `{event?, sealed?, after?}` with a valid event or sealed event (at least one, of one id)",
  },
  "unknown_event": { where: "a push on `server:<id>`", meaning: "the bridge does not know this event" },
  "e2e_required": {
    where: "join of `pairing`; the server's `pair_result`",
    meaning:
      "the server's config sets `bridge.require_e2e`: a device must pair with its public key (`device_key`); plain pairing is refused and the code is spent",
  },
  "abandoned": {
    where: "the server's ok `pair_result`",
    meaning: "nobody waits for this pairing any more: the server revokes the device it created",
  },
} as const satisfies Record<string, BridgeReasonRule>;

export type BridgeReason = keyof typeof BRIDGE_REASONS;

export function isBridgeReason(reason: string): reason is BridgeReason {
  return Object.hasOwn(BRIDGE_REASONS, reason);
}
