// XChaCha20-Poly1305 (xchacha.ts: @noble/ciphers, or Node's OpenSSL behind noble's HChaCha20) with a random 24-byte
// nonce per message: random nonces are safe at that length, so no counter has to be kept across restarts or devices.
// The associated data binds a ciphertext to where it belongs (an event id, a key id, a request); opened anywhere
// else it fails.
import { randomBytes } from "./random.ts";
import { fromBase64Url, toBase64Url } from "./bytes.ts";
import { CryptoError } from "./keys.ts";
import { xchacha } from "./xchacha.ts";

export const NONCE_BYTES = 24;

export interface Sealed {
  /** base64url, 24 bytes. */
  nonce: string;
  /** base64url: the ciphertext with its 16-byte tag. */
  ciphertext: string;
}

export function seal(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Sealed {
  const nonce = randomBytes(NONCE_BYTES);
  const ciphertext = xchacha.encrypt(key, nonce, aad, plaintext);
  return { nonce: toBase64Url(nonce), ciphertext: toBase64Url(ciphertext) };
}

/** The plaintext; throws CryptoError when the ciphertext was altered, moved, or made under another key. */
export function open(key: Uint8Array, sealed: Sealed, aad: Uint8Array): Uint8Array {
  const nonce = fromBase64Url(sealed.nonce, NONCE_BYTES);
  const ciphertext = fromBase64Url(sealed.ciphertext);
  if (!nonce || !ciphertext) throw new CryptoError("sealed value is not base64url");
  try {
    return xchacha.decrypt(key, nonce, aad, ciphertext);
  } catch {
    throw new CryptoError("ciphertext does not open: altered, moved or under another key");
  }
}
