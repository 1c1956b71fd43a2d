// Byte encodings the crypto module speaks on the wire: base64url without padding (keys in URLs and JSON, nonces,
// ciphertexts) and UTF-8. base64url is the platform's own, behind this one seam (docs/security.md "Seams"): Node's
// Buffer where it exists (the server, Node clients), else atob/btoa (browsers, React Native); no hand-written
// encoder. Decoding is strict the same way on both: the platform decoders are lenient (Buffer skips characters
// outside the alphabet and takes both alphabets; atob skips spaces and takes padding), so text is accepted only when
// encoding its bytes again would give that very text (checked on the text: isCanonicalBase64Url). That also refuses a
// last character with leftover bits set, so every byte string has exactly one accepted text.
import { nodeBuffer } from "../node-buffer.ts";

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

/** Typed arrays up to this many bytes live inside V8's heap until their `.buffer` is asked for (V8's in-heap limit). */
const IN_HEAP_BYTES = 64;

export function toBase64Url(bytes: Uint8Array): string {
  // A small array (a nonce, a call id) is copied into Node's pool: asking for its `.buffer` would malloc a backing
  // store for it, which every scavenge then sweeps (xchacha.ts, "scratch").
  if (nodeBuffer)
    return (
      bytes.byteLength <= IN_HEAP_BYTES
        ? nodeBuffer.from(bytes)
        : nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    ).toString("base64url");
  let binary = "";
  // Chunks keep String.fromCharCode's argument list short (engines cap it).
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Undefined for text that is not unpadded base64url (or has the wrong length when `length` is given). */
export function fromBase64Url(text: string, length?: number): Uint8Array | undefined {
  if (!isCanonicalBase64Url(text)) return undefined;
  const bytes = decode(text);
  return bytes && (length === undefined || bytes.length === length) ? bytes : undefined;
}

const BASE64URL_TEXT = /^[A-Za-z0-9_-]*$/;
const BASE64URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Whether `text` is the one encoding of some bytes, the rule the header states, checked on the text itself: encoding
 * the decoded bytes again to compare cost a second string and a copy per value (the sealed relay's hot path,
 * docs/benchmarks.md "Sealed relay"). URL alphabet only; a length of 4n+1 encodes no bytes; a last character of a
 * 4n+2 text carries 2 bits and of a 4n+3 text 4 bits, the rest of its 6 must be 0.
 */
function isCanonicalBase64Url(text: string): boolean {
  const leftover = text.length % 4;
  if (leftover === 1 || !BASE64URL_TEXT.test(text)) return false;
  if (leftover === 0) return true;
  const last = BASE64URL_ALPHABET.indexOf(text[text.length - 1]!);
  return (last & (leftover === 2 ? 0b1111 : 0b11)) === 0;
}

/** The platform decoder's reading of `text`, lenient (checked by the caller); undefined where it throws. */
function decode(text: string): Uint8Array | undefined {
  if (nodeBuffer) {
    const bytes = nodeBuffer.from(text, "base64url");
    // A plain Uint8Array over the same memory: callers compare and store bytes, never Buffer's methods.
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let at = 0; at < binary.length; at++) bytes[at] = binary.charCodeAt(at);
  return bytes;
}
