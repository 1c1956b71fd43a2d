// A sealed box: a message only the holder of a public key's secret can open, from a sender who keeps no key. An
// ephemeral X25519 pair meets the recipient's key, HKDF-SHA256 (both public keys in the info) gives the AEAD key,
// XChaCha20-Poly1305 seals. Used for the content keys the server hands each encrypting device.
import { x25519 } from "@noble/curves/ed25519.js";
import { seal, open, type Sealed } from "./aead.ts";
import { fromBase64Url, toBase64Url } from "./bytes.ts";
import { CryptoError, deriveKey, KEY_BYTES, keyBytes } from "./keys.ts";

export interface SealedBox extends Sealed {
  /** base64url of the sender's ephemeral public key. */
  ephemeral: string;
}

const PURPOSE = "sealed box";

export function sealTo(recipientPublic: string, plaintext: Uint8Array, aad: Uint8Array): SealedBox {
  const recipient = keyBytes(recipientPublic);
  const ephemeral = x25519.keygen();
  const key = deriveKey(
    x25519.getSharedSecret(ephemeral.secretKey, recipient),
    PURPOSE,
    ephemeral.publicKey,
    recipient,
  );
  return { ephemeral: toBase64Url(ephemeral.publicKey), ...seal(key, plaintext, aad) };
}

export function openBox(recipientSecret: string, box: SealedBox, aad: Uint8Array): Uint8Array {
  const secret = keyBytes(recipientSecret);
  const ephemeral = fromBase64Url(box.ephemeral, KEY_BYTES);
  if (!ephemeral) throw new CryptoError("sealed box without an ephemeral key");
  let shared: Uint8Array;
  try {
    shared = x25519.getSharedSecret(secret, ephemeral);
  } catch {
    throw new CryptoError("sealed box with an unusable ephemeral key");
  }
  return open(deriveKey(shared, PURPOSE, ephemeral, x25519.getPublicKey(secret)), box, aad);
}
