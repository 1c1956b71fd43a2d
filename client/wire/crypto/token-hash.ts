// The one form in which a secret the server and the bridge check is kept and passed between them: SHA-256 of its
// UTF-8 as 64 lowercase hex digits. The server stores its tokens so (devices, producers, the admin token) and hands
// the bridge a device grant's `token_hash`; a pairing code travels as `code_hash`; the bridge hashes what a socket or
// a server presents and compares. A fast hash is right: a token has full entropy, so there is nothing for a slow hash
// to protect against, and a pairing code lives minutes under a rate limit.
//
// On Node (the server and the bridge, which hash a token on every authenticated request and socket) the hash is
// OpenSSL's, through node:crypto: 0.8 µs a token against noble's 1.8 (docs/benchmarks.md "Sealed relay", fourth
// pass). Elsewhere it is @noble/hashes'. Both give the same digest (test/auth/tokens.test.ts).
import { equalBytes } from "@noble/ciphers/utils.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { nodeCrypto } from "../node-crypto.ts";
import { utf8 } from "./bytes.ts";

export function sha256Hex(text: string): string {
  const crypto = nodeCrypto();
  return crypto ? crypto.createHash("sha256").update(text, "utf8").digest("hex") : nobleSha256Hex(text);
}

/** The portable hash, where there is no node:crypto (a browser, React Native). */
export function nobleSha256Hex(text: string): string {
  return bytesToHex(sha256(utf8(text)));
}

/**
 * Whether two hashes (hex) are the same, compared in a time that does not tell where they differ. Text that is not
 * hex, or hashes of two lengths (a hand-edited admin token file), are not the same: never a throw on a request.
 */
export function sameHash(a: string, b: string): boolean {
  const left = hexBytes(a);
  const right = hexBytes(b);
  return left !== undefined && right !== undefined && left.length === right.length && equalBytes(left, right);
}

function hexBytes(text: string): Uint8Array | undefined {
  try {
    return hexToBytes(text);
  } catch {
    return undefined;
  }
}
