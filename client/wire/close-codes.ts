// The close-code rule, defined once (docs/bridge.md "Close codes and why" is this table): which codes the bridge
// closes a socket with, what each means, and what the client library does after it. The official phoenix client
// (1.8.16) reconnects after any close it did not start, whatever the code, so the code is a message to our library:
// come back (reconnect, rejoin with since_id), stay away from the bridge (HTTP goes on), or stop and give up the
// token (the app must pair again).

export interface CloseCodeRule {
  code: number;
  meaning: string;
  /** The library lets phoenix reconnect and rejoin. */
  reconnect: boolean;
  /** The library stops for good and reports its token refused (`revoked` for 4001, else `unauthorized`). */
  forgetToken: boolean;
}

export const CLOSE_CODES = {
  normal: {
    code: 1000,
    meaning: "never sent by the bridge (it would strand stock clients); a proxy's normal close",
    reconnect: true,
    forgetToken: false,
  },
  goingAway: {
    code: 1001,
    meaning: "bridge shutdown (SIGINT/SIGTERM) or idle timeout",
    reconnect: true,
    forgetToken: false,
  },
  abnormal: {
    code: 1006,
    meaning: "the link dropped without a close frame (seen by the client, never sent)",
    reconnect: true,
    forgetToken: false,
  },
  invalidFrame: {
    code: 1007,
    meaning: "malformed frame: the peer speaks something else, a retry would repeat it",
    reconnect: false,
    forgetToken: false,
  },
  policy: {
    code: 1008,
    meaning: "policy: the socket's credentials or use are refused",
    reconnect: false,
    forgetToken: true,
  },
  tooBig: {
    code: 1009,
    meaning: "frame over MAX_FRAME_BYTES: a retry would repeat it",
    reconnect: false,
    forgetToken: false,
  },
  internalError: {
    code: 1011,
    meaning: "a frame or deferred join handler failed inside the bridge; only that socket is closed",
    reconnect: true,
    forgetToken: false,
  },
  restart: {
    code: 1012,
    meaning: "the server's store was reset, or its events reached the bridge with a hole: rejoin with since_id",
    reconnect: true,
    forgetToken: false,
  },
  slowConsumer: {
    code: 1013,
    meaning: "slow consumer: the send buffer passed its bound; rejoin with since_id to catch up",
    reconnect: true,
    forgetToken: false,
  },
  deviceRevoked: { code: 4001, meaning: "the device was revoked", reconnect: false, forgetToken: true },
} as const satisfies Record<string, CloseCodeRule>;

export type CloseCodeName = keyof typeof CLOSE_CODES;

/** Name → code, for the places that close a socket (`BRIDGE_CLOSE.slowConsumer`). */
export const BRIDGE_CLOSE = Object.fromEntries(
  Object.entries(CLOSE_CODES).map(([name, rule]) => [name, rule.code]),
) as {
  readonly [Name in CloseCodeName]: (typeof CLOSE_CODES)[Name]["code"];
};

/** A code the table does not name (another relay's, a proxy's): come back, as the official client does. */
const UNKNOWN_CODE: Omit<CloseCodeRule, "code"> = {
  meaning: "not one of the bridge's codes",
  reconnect: true,
  forgetToken: false,
};

const byCode = new Map<number, CloseCodeRule>(Object.values(CLOSE_CODES).map((rule) => [rule.code, rule]));

/** What the library does after a close with `code` (undefined: the transport gave none). */
export function closeCodeRule(code: number | undefined): CloseCodeRule {
  return (
    (code === undefined ? undefined : byCode.get(code)) ?? { code: code ?? CLOSE_CODES.abnormal.code, ...UNKNOWN_CODE }
  );
}
