// Ids the library makes up itself. crypto.randomUUID exists only in secure contexts (https, localhost): an app
// opened at http://<LAN address> has getRandomValues alone, so ids are built from it.
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** 128 random bits as 32 hex characters, prefixed: a client_request_id for POST /sessions/{id}/send. */
export function newClientRequestId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let hex = "";
  for (const byte of bytes) hex += HEX[byte];
  return `crid_${hex}`;
}
