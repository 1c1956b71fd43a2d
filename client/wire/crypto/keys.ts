// X25519 key pairs (RFC 7748, @noble/curves: audited, pure JS), the raw Diffie-Hellman between two of them with
// HKDF-SHA256 on top (RFC 5869, @noble/hashes), and the short fingerprint people compare by eye. Public keys travel
// as base64url (43 characters); a key that does not decode, or a low-order point, is refused.
import { x25519 } from "@noble/curves/ed25519.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes } from "@noble/hashes/utils.js";
import { PAIRING_CODE_ALPHABET } from "../frames.ts";
import { fromBase64Url, toBase64Url, utf8 } from "./bytes.ts";

export const KEY_BYTES = 32;

export interface KeyPair {
  /** base64url of the 32-byte secret key; never leaves its owner. */
  secretKey: string;
  /** base64url of the 32-byte public key. */
  publicKey: string;
}

export class CryptoError extends Error {
  override readonly name = "CryptoError";
}

export function generateKeyPair(): KeyPair {
  const { secretKey, publicKey } = x25519.keygen();
  return { secretKey: toBase64Url(secretKey), publicKey: toBase64Url(publicKey) };
}

export function publicKeyOf(secretKey: string): string {
  return toBase64Url(x25519.getPublicKey(keyBytes(secretKey)));
}

/** A public or secret key's bytes; throws CryptoError for anything that is not 32 bytes of base64url. */
export function keyBytes(key: string): Uint8Array {
  const bytes = fromBase64Url(key, KEY_BYTES);
  if (!bytes) throw new CryptoError("not a 32-byte base64url key");
  return bytes;
}

/** Whether `key` is a 32-byte base64url value (a public key's shape; the curve decides the rest). */
export function isKeyText(key: string): boolean {
  return fromBase64Url(key, KEY_BYTES) !== undefined;
}

/**
 * A symmetric key both sides of a static X25519 pair derive alike: HKDF-SHA256 of the shared secret, with a purpose
 * label and both public keys (server's first) in the info, so a key made for one purpose or pair is no other's.
 */
export function sharedKey(
  mySecret: string,
  theirPublic: string,
  purpose: string,
  serverPublic: string,
  devicePublic: string,
): Uint8Array {
  let shared: Uint8Array;
  try {
    shared = x25519.getSharedSecret(keyBytes(mySecret), keyBytes(theirPublic));
  } catch (error) {
    throw error instanceof CryptoError ? error : new CryptoError("unusable public key");
  }
  return deriveKey(shared, purpose, keyBytes(serverPublic), keyBytes(devicePublic));
}

/** HKDF-SHA256 (no salt) of `secret` into 32 bytes, bound to a purpose label and two public keys. */
export function deriveKey(secret: Uint8Array, purpose: string, first: Uint8Array, second: Uint8Array): Uint8Array {
  return hkdf(sha256, secret, undefined, concatBytes(utf8(`chat-relay ${purpose} v1\0`), first, second), KEY_BYTES);
}

/**
 * A short fingerprint of a public key for people to compare (`npm run pair`, the Devices screen, pairing by typed
 * code): the first 80 bits of its SHA-256 in Crockford base32, as four groups of four (`7K2M-Q9XD-4HNP-0T3V`).
 * Finding another key with the same fingerprint takes about 2^80 work.
 */
export function fingerprint(publicKey: string): string {
  const digest = sha256(keyBytes(publicKey));
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of digest.subarray(0, 10)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += PAIRING_CODE_ALPHABET[(value >> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out.match(/.{4}/g)!.join("-");
}
