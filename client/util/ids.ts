// Ids the library makes up itself, and the generator an app should use for its own (draft ids, attachment ids).
// crypto.randomUUID exists only in secure contexts (https, localhost): an app opened at http://<LAN address> has
// crypto.getRandomValues alone (every browser, React Native with its polyfill, Node), so ids are built from it.
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

function randomHex(bytes: number): string {
  const random = globalThis.crypto.getRandomValues(new Uint8Array(bytes));
  let hex = "";
  for (const byte of random) hex += HEX[byte];
  return hex;
}

/** 128 random bits as 32 lowercase hex characters, after `prefix` when given (`randomId("draft_")`). */
export function randomId(prefix = ""): string {
  return prefix + randomHex(16);
}

/**
 * A version 4 UUID (RFC 9562) from getRandomValues: what `crypto.randomUUID()` returns, also on an insecure origin.
 * A drop-in for code written against randomUUID.
 */
export function randomUuid(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10
  const hex = Array.from(bytes, (byte) => HEX[byte]).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** 128 random bits as 32 hex characters, prefixed: a client_request_id for POST /sessions/{id}/send. */
export function newClientRequestId(): string {
  return randomId("crid_");
}
