// Ids the app makes up (client_request_id, attachment keys). crypto.randomUUID exists only in secure contexts; an
// app opened at http://<LAN address> has getRandomValues alone, so ids are built from it. (The client library is
// gaining its own generator; when its public entry exports it, this file becomes a re-export.)
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** 128 random bits as hex, with a prefix saying what the id is for. */
export function newId(prefix: string): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let hex = "";
  for (const byte of bytes) hex += HEX[byte];
  return `${prefix}_${hex}`;
}
