// Byte encodings the crypto module speaks on the wire: base64url without padding (keys in URLs and JSON, nonces,
// ciphertexts) and UTF-8. Built on the library's base64 helper (client/util/base64.ts), so every platform
// (browsers, React Native, Node) decodes the same way.
import { base64UrlToBytes, bytesToBase64Url } from "../util/base64.ts";
import { nodeBuffer } from "../util/node-buffer.ts";

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** UTF-8 bytes; on Node through Buffer, whose encoder is several times faster than TextEncoder's on Node 20. */
export function utf8(text: string): Uint8Array {
  return nodeBuffer ? nodeBuffer.from(text, "utf8") : utf8Encoder.encode(text);
}

/** Throws on bytes that are not UTF-8 (a decrypted payload that is not text was never ours). */
export function fromUtf8(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

export function toBase64Url(bytes: Uint8Array): string {
  return bytesToBase64Url(bytes);
}

/** Undefined for text that is not base64url (or has the wrong length when `length` is given). */
export function fromBase64Url(text: string, length?: number): Uint8Array | undefined {
  const bytes = base64UrlToBytes(text);
  return bytes && (length === undefined || bytes.length === length) ? bytes : undefined;
}
