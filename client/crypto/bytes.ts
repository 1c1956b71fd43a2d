// Byte encodings the crypto module speaks on the wire: base64url without padding (keys in URLs and JSON, nonces,
// ciphertexts) and UTF-8. Built on the library's base64 helper, so every platform (browsers, React Native, Node)
// runs the same code.
import { base64ToBytes, bytesToBase64 } from "../util/base64.ts";

/** Node's Buffer where there is one (the server, the bridge's tests, Node apps): its base64url is native code. */
const NodeBuffer = (globalThis as { Buffer?: { from(data: Uint8Array | string, encoding?: "base64url"): Uint8Array & { toString(encoding: "base64url"): string } } }).Buffer;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

export function utf8(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

/** Throws on bytes that are not UTF-8 (a decrypted payload that is not text was never ours). */
export function fromUtf8(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

export function toBase64Url(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes).toString("base64url");
  return bytesToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Undefined for text that is not base64url (or has the wrong length when `length` is given). */
export function fromBase64Url(text: string, length?: number): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  if (NodeBuffer) {
    const bytes = new Uint8Array(NodeBuffer.from(text, "base64url"));
    // Node skips a dangling character where atob refuses: the same text must fail alike everywhere.
    return text.length % 4 === 1 || (length !== undefined && bytes.length !== length) ? undefined : bytes;
  }
  try {
    const bytes = base64ToBytes(text.replace(/-/g, "+").replace(/_/g, "/"));
    return length === undefined || bytes.length === length ? bytes : undefined;
  } catch {
    return undefined;
  }
}
