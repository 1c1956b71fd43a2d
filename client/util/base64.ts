// Bytes to base64 and back, standard (padded: attachments) and base64url without padding (the crypto module's
// wire encoding). Every sealed relayed call encodes and decodes several of these, so both directions are
// table-driven (no argument spread, no intermediate binary string); where Node's Buffer exists (server, library
// under Node) its native code does the work. Decoding is strict: any character outside the alphabet, misplaced
// padding or an impossible length is refused (Buffer's decoder skips such characters, so on Node the text is checked
// first, by one native regex test). The same code runs in browsers and React Native.
import { nodeBuffer } from "../wire/node-buffer.ts";

const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Char code → 6-bit value, -1 for a character outside the alphabet. */
function decodeTable(alphabet: string): Int16Array {
  const table = new Int16Array(128).fill(-1);
  for (let index = 0; index < alphabet.length; index++) table[alphabet.charCodeAt(index)] = index;
  return table;
}
const STANDARD_VALUES = decodeTable(STANDARD);
const URL_SAFE_VALUES = decodeTable(URL_SAFE);

/** The whole of an unpadded text in each alphabet (what Buffer would decode without skipping anything). */
const STANDARD_TEXT = /^[A-Za-z0-9+/]*$/;
const URL_SAFE_TEXT = /^[A-Za-z0-9_-]*$/;

export function bytesToBase64(bytes: Uint8Array): string {
  return nodeBuffer
    ? nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")
    : encode(bytes, STANDARD, true);
}

/** The inverse (relayed attachment downloads arrive as base64); padding optional, as with atob. Throws on text
 *  that is not base64. */
export function base64ToBytes(text: string): Uint8Array {
  let end = text.length;
  if (end % 4 === 0 && text.charCodeAt(end - 1) === 61 /* = */) end -= text.charCodeAt(end - 2) === 61 ? 2 : 1;
  const bytes = decodeText(end === text.length ? text : text.slice(0, end), STANDARD_VALUES, STANDARD_TEXT, "base64");
  if (!bytes) throw new SyntaxError("not base64");
  return bytes;
}

/** base64url without padding. */
export function bytesToBase64Url(bytes: Uint8Array): string {
  return nodeBuffer
    ? nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url")
    : encode(bytes, URL_SAFE, false);
}

/** Undefined for text that is not unpadded base64url. */
export function base64UrlToBytes(text: string): Uint8Array | undefined {
  return decodeText(text, URL_SAFE_VALUES, URL_SAFE_TEXT, "base64url");
}

/** Unpadded `text` decoded, natively where Buffer exists; undefined when it is not in the alphabet or has a length
 *  no encoding produces. */
function decodeText(
  text: string,
  values: Int16Array,
  alphabet: RegExp,
  encoding: "base64" | "base64url",
): Uint8Array | undefined {
  if (!nodeBuffer) return decode(text, values);
  if (text.length % 4 === 1 || !alphabet.test(text)) return undefined;
  const bytes = nodeBuffer.from(text, encoding);
  // A plain Uint8Array over the same memory: callers compare and store bytes, never Buffer's methods.
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = "";
  const whole = bytes.length - (bytes.length % 3);
  for (let index = 0; index < whole; index += 3) {
    const triple = (bytes[index]! << 16) | (bytes[index + 1]! << 8) | bytes[index + 2]!;
    out +=
      alphabet[triple >> 18]! + alphabet[(triple >> 12) & 63]! + alphabet[(triple >> 6) & 63]! + alphabet[triple & 63]!;
  }
  const rest = bytes.length - whole;
  if (rest === 1) {
    const value = bytes[whole]!;
    out += alphabet[value >> 2]! + alphabet[(value << 4) & 63]! + (pad ? "==" : "");
  } else if (rest === 2) {
    const value = (bytes[whole]! << 8) | bytes[whole + 1]!;
    out += alphabet[value >> 10]! + alphabet[(value >> 4) & 63]! + alphabet[(value << 2) & 63]! + (pad ? "=" : "");
  }
  return out;
}

/** `text` decoded; undefined for a character outside the table or a length no encoding produces (one character
 *  left over). Leftover low bits of the last character are ignored, as atob does. */
function decode(text: string, values: Int16Array): Uint8Array | undefined {
  const end = text.length;
  if (end % 4 === 1) return undefined;
  const bytes = new Uint8Array(Math.floor((end * 3) / 4));
  let written = 0;
  let acc = 0;
  let bits = 0;
  for (let index = 0; index < end; index++) {
    const code = text.charCodeAt(index);
    const value = code < 128 ? values[code]! : -1;
    if (value < 0) return undefined;
    acc = ((acc << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[written++] = (acc >> bits) & 0xff;
    }
  }
  return bytes;
}
