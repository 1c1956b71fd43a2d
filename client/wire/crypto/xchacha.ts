// XChaCha20-Poly1305 behind one named seam (docs/security.md "Seams"). The plain default is @noble/ciphers, audited,
// the same code in browsers, React Native and Node. The one optimisation, `useCipher("openssl")`, is Node's OpenSSL
// ChaCha20-Poly1305 behind noble's HChaCha20, the construction of draft-irtf-cfrg-xchacha §2.3: HChaCha20(key,
// nonce[0..16]) is the subkey, and 4 zero bytes then nonce[16..24] the 12-byte IETF nonce. It writes no primitive,
// only that composition; test/client/xchacha.test.ts checks its bytes against noble's and the draft's vector, and it
// is switched on only after a self-check at the switch gives noble's bytes. Kept because the relay benchmark shows it
// pays where it is switched on, the server (docs/benchmarks.md "Sealed relay").
// node:crypto is reached through process.getBuiltinModule (node-crypto.ts), so bundlers for the browser see no import.
import { hchacha, xchacha20poly1305 } from "@noble/ciphers/chacha.js";
import { nodeCrypto, type NodeCrypto } from "../node-crypto.ts";

export const TAG_BYTES = 16;

export interface XChaCha {
  encrypt(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Uint8Array;
  /** Throws when the tag does not verify. */
  decrypt(key: Uint8Array, nonce: Uint8Array, aad: Uint8Array, ciphertext: Uint8Array): Uint8Array;
}

export const nobleXChaCha: XChaCha = {
  encrypt: (key, nonce, aad, plaintext) => xchacha20poly1305(key, nonce, aad).encrypt(plaintext),
  decrypt: (key, nonce, aad, ciphertext) => xchacha20poly1305(key, nonce, aad).decrypt(ciphertext),
};

/** "expand 32-byte k", the ChaCha constant, as little-endian words. */
const SIGMA = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);

/**
 * Scratch for one derivation at a time (seal and open are synchronous, and OpenSSL copies the subkey and the nonce
 * into its context when the cipher is made, so the next call may overwrite them). Reused, not allocated per call: a
 * small typed array made per call lives on V8's heap until its `.buffer` is asked for, which then mallocs a backing
 * store that every scavenge has to sweep. On the server, with the route's own allocations in between, that malloc
 * and free churn cost more than the cipher's arithmetic (profiled under scripts/bench/relay.ts, docs/benchmarks.md
 * "Sealed relay").
 */
let scratch: ReturnType<typeof makeScratch> | undefined;

// Made on first use, not at module level: the app's bundler counts module-level code it cannot prove pure as a side
// effect, which kept this module (and @noble/ciphers) in the app's first paint.
function makeScratch() {
  const subkey = new Uint32Array(8);
  return {
    keyWords: new Uint32Array(8),
    nonceWords: new Uint32Array(4),
    subkey,
    subkeyBytes: new Uint8Array(subkey.buffer),
    iv: new Uint8Array(new ArrayBuffer(12)),
  };
}

/** Reads `bytes` as little-endian words into `into` (any offset: the bytes may sit inside a pooled buffer). */
function readWords(bytes: Uint8Array, into: Uint32Array): Uint32Array {
  for (let word = 0, at = 0; word < into.length; word++, at += 4)
    into[word] = (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
  return into;
}

/**
 * The ChaCha20-Poly1305 key and 12-byte nonce that XChaCha20-Poly1305 with this key and 24-byte nonce uses, in the
 * scratch: valid until the next derivation.
 */
function derive(key: Uint8Array, nonce: Uint8Array): { subkey: Uint8Array; iv: Uint8Array } {
  if (key.length !== 32) throw new Error("xchacha: key must be 32 bytes");
  if (nonce.length !== 24) throw new Error("xchacha: nonce must be 24 bytes");
  const words = (scratch ??= makeScratch());
  hchacha(SIGMA, readWords(key, words.keyWords), readWords(nonce, words.nonceWords), words.subkey);
  words.iv.fill(0, 0, 4);
  words.iv.set(nonce.subarray(16), 4);
  return { subkey: words.subkeyBytes, iv: words.iv };
}

export function nodeXChaCha(crypto: NodeCrypto): XChaCha {
  return {
    encrypt(key, nonce, aad, plaintext) {
      const { subkey, iv } = derive(key, nonce);
      const cipher = crypto.createCipheriv("chacha20-poly1305", subkey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad, { plaintextLength: plaintext.length });
      const body = cipher.update(plaintext);
      cipher.final();
      // One copy into a buffer Node cuts from its pool (under 4 KiB), not a malloc'd array per call.
      return Buffer.concat([body, cipher.getAuthTag()], body.length + TAG_BYTES);
    },
    decrypt(key, nonce, aad, ciphertext) {
      if (ciphertext.length < TAG_BYTES) throw new Error("xchacha: ciphertext shorter than its tag");
      const { subkey, iv } = derive(key, nonce);
      const split = ciphertext.length - TAG_BYTES;
      const decipher = crypto.createDecipheriv("chacha20-poly1305", subkey, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(ciphertext.subarray(split));
      decipher.setAAD(aad, { plaintextLength: split });
      const body = decipher.update(ciphertext.subarray(0, split));
      decipher.final(); // throws when the tag does not verify
      return new Uint8Array(body.buffer, body.byteOffset, body.length);
    },
  };
}

/** node:crypto when this is Node with OpenSSL's ChaCha20-Poly1305 on a little-endian machine; else undefined. */
function nodeChaCha(): NodeCrypto | undefined {
  const crypto = nodeCrypto();
  const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  return crypto?.getCiphers().includes("chacha20-poly1305") && littleEndian ? crypto : undefined;
}

/** Whether `candidate` seals and opens as noble does (once, at load: a runtime could list the cipher yet not run it). */
function agreesWithNoble(candidate: XChaCha): boolean {
  try {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i);
    const nonce = Uint8Array.from({ length: 24 }, (_, i) => 64 + i);
    const aad = Uint8Array.of(1, 2, 3);
    const plaintext = Uint8Array.from({ length: 100 }, (_, i) => i * 7);
    const sealed = candidate.encrypt(key, nonce, aad, plaintext);
    const expected = nobleXChaCha.encrypt(key, nonce, aad, plaintext);
    const opened = candidate.decrypt(key, nonce, aad, expected);
    return (
      sealed.length === expected.length &&
      sealed.every((byte, i) => byte === expected[i]) &&
      opened.length === plaintext.length &&
      opened.every((byte, i) => byte === plaintext[i])
    );
  } catch {
    return false;
  }
}

/** The implementations the seam can use: `noble` (the default) or `openssl` (Node only). */
export type CipherName = "noble" | "openssl";

let active: { name: CipherName; impl: XChaCha } = { name: "noble", impl: nobleXChaCha };
let openssl: XChaCha | null | undefined;

/** OpenSSL's composition where this is Node with the cipher and it agrees with noble (checked once); else null. */
function opensslXChaCha(): XChaCha | null {
  if (openssl !== undefined) return openssl;
  const crypto = nodeChaCha();
  const candidate = crypto ? nodeXChaCha(crypto) : undefined;
  return (openssl = candidate && agreesWithNoble(candidate) ? candidate : null);
}

/**
 * Chooses what every seal and open in this process uses; answers what is in use after the call (`openssl` asked
 * where it is missing or disagrees with noble leaves noble). Both give the same bytes: either side may use either.
 */
export function useCipher(name: CipherName): CipherName {
  const impl = name === "openssl" ? opensslXChaCha() : nobleXChaCha;
  if (impl) active = { name, impl };
  return active.name;
}

export function cipherInUse(): CipherName {
  return active.name;
}

/** The seam seal and open go through: whichever implementation `useCipher` chose, noble until then. */
export const xchacha: XChaCha = {
  encrypt: (key, nonce, aad, plaintext) => active.impl.encrypt(key, nonce, aad, plaintext),
  decrypt: (key, nonce, aad, ciphertext) => active.impl.decrypt(key, nonce, aad, ciphertext),
};
