// End-to-end encryption's primitives, shared by the server, the client library and the app (docs/security.md).
export { CryptoError, fingerprint, generateKeyPair, isKeyText, publicKeyOf, sharedKey, type KeyPair } from "./keys.ts";
export { seal, open, type Sealed } from "./aead.ts";
export { sealTo, openBox, type SealedBox } from "./sealed-box.ts";
export * from "./envelopes.ts";
export { toBase64Url, fromBase64Url } from "./bytes.ts";
export { randomBytes, randomInUse, useRandom, type RandomName } from "./random.ts";
export { cipherInUse, useCipher, type CipherName } from "./xchacha.ts";
