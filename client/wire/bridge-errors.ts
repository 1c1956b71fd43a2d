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
  "unmatched topic": { where: "any join; a push on a topic the socket has not joined", meaning: "no such topic, or not joined" },
  too_many_channels: { where: "any join", meaning: "the socket already has 100 channels" },
  invalid_params: {
    where: "join of `pairing`, `events:server:<id>`; the server's `grants`, `pair_result` pushes",
    meaning: "the params or payload do not match the wire schema",
  },
  unauthorized: {
    where: "join of `events:server:<id>`, `server:<id>`",
    meaning: "no device token, an unknown or revoked one, another server's; or a wrong server credential. The library stops and forgets its token",
  },
  already_connected: { where: "join of `server:<id>`", meaning: "the server credential was replayed while its channel is live" },
  registration_closed: { where: "join of `server:<id>` for a new id", meaning: "the bridge serves `BRIDGE_MAX_SERVERS` servers already" },
  rate_limited: {
    where: "join of `pairing`; join of `server:<id>` for a new id",
    meaning: "too many failed pairing attempts from this address (or overall), or too many new server ids from this address, in the window",
  },
  invalid_code: { where: "join of `pairing`; the server's `pair_result`", meaning: "no live pairing code matches (wrong, or used already)" },
  expired: { where: "join of `pairing`; the server's `pair_result`", meaning: "the pairing code's 10 minutes are over" },
  server_unavailable: {
    where: "join of `pairing`; the server's `pair_result`",
    meaning: "the code's server is not connected, did not answer in time, left, or failed to redeem the code",
  },
  read_only: { where: "an app's push on `events:server:<id>`", meaning: "apps only receive on this topic" },
  invalid_event: { where: "the server's `session_event` push", meaning: "the payload is not `{event, after?}` with a valid event" },
  unknown_event: { where: "a push on `server:<id>`", meaning: "the bridge does not know this event" },
  abandoned: { where: "the server's ok `pair_result`", meaning: "nobody waits for this pairing any more: the server revokes the device it created" },
} as const satisfies Record<string, BridgeReasonRule>;

export type BridgeReason = keyof typeof BRIDGE_REASONS;

export function isBridgeReason(reason: string): reason is BridgeReason {
  return Object.hasOwn(BRIDGE_REASONS, reason);
}
