// The failures the client library reports of its own, beside the codes it passes on from the server (errors.ts) and
// the bridge (bridge-errors.ts): a `PairingError`'s `reason` is a BridgeReason of the `pairing` join or one of these.
// docs/errors.md is generated from this table.

export const LIBRARY_ERRORS = {
  timeout: {
    where: "`pair()`",
    meaning: "the bridge did not answer the pairing join in time (`timeoutMs`, default 10 s)",
  },
  bridge_unreachable: { where: "`pair()`", meaning: "the socket to the bridge failed before an answer" },
  protocol: { where: "`pair()`", meaning: "the bridge answered with a shape the wire contract does not know" },
  server_offline: {
    where: "any server call of a connected client (`ServerOfflineError`)",
    meaning:
      "the call could not reach the server while the bridge says the server's link is down, or the bridge relay found no server (`server_unavailable`); this device's network is fine",
  },
  invalid_share_link: {
    where: "`openSharedLink()` (`SharedLinkError`)",
    meaning:
      "the text is not a share link (`…#/shared/<token>.<key>` or `<token>.<key>`), or its key does not open the blob the server answered (altered, or another link's)",
  },
} as const satisfies Record<string, { where: string; meaning: string }>;

export type LibraryErrorCode = keyof typeof LIBRARY_ERRORS;
