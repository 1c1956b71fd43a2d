// The two XChaCha20-Poly1305 implementations (client/wire/crypto/xchacha.ts) give the same bytes: Node's OpenSSL
// ChaCha20-Poly1305 behind noble's HChaCha20, and @noble/ciphers alone. Each opens what the other sealed, both refuse
// what was altered, and both give draft-irtf-cfrg-xchacha's test vector (A.3.1).
import * as nodeCrypto from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { cipherInUse, nobleXChaCha, nodeXChaCha, useCipher } from "../../client/wire/crypto/xchacha.ts";

const native = nodeXChaCha(nodeCrypto);
const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ""), "hex"));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** Bytes at an odd offset of a larger buffer, as pooled random bytes and decoded frames are. */
function unaligned(bytes: Uint8Array): Uint8Array {
  const host = new Uint8Array(bytes.length + 3);
  host.set(bytes, 3);
  return host.subarray(3);
}

describe("XChaCha20-Poly1305 (S43)", () => {
  it("gives draft-irtf-cfrg-xchacha's A.3.1 vector, natively and in noble", () => {
    const plaintext = new TextEncoder().encode(
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
    );
    const key = hex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
    const nonce = hex("404142434445464748494a4b4c4d4e4f5051525354555657");
    const aad = hex("50515253c0c1c2c3c4c5c6c7");
    const expected =
      "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e" +
      "c0875924c1c7987947deafd8780acf49";
    expect(toHex(native.encrypt(key, nonce, aad, plaintext))).toBe(expected);
    expect(toHex(nobleXChaCha.encrypt(key, nonce, aad, plaintext))).toBe(expected);
    expect(new TextDecoder().decode(native.decrypt(key, nonce, aad, hex(expected)))).toBe(
      new TextDecoder().decode(plaintext),
    );
  });

  it("seals the same bytes as noble at every length, and each opens the other's", () => {
    for (const length of [0, 1, 15, 16, 17, 63, 64, 65, 255, 1000, 4096, 70_000]) {
      const key = unaligned(nodeCrypto.randomBytes(32));
      const nonce = unaligned(nodeCrypto.randomBytes(24));
      const aad = unaligned(nodeCrypto.randomBytes(length % 40));
      const plaintext = unaligned(nodeCrypto.randomBytes(length));
      const sealed = native.encrypt(key, nonce, aad, plaintext);
      expect(toHex(sealed)).toBe(toHex(nobleXChaCha.encrypt(key, nonce, aad, plaintext)));
      expect(toHex(nobleXChaCha.decrypt(key, nonce, aad, sealed))).toBe(toHex(plaintext));
      expect(toHex(native.decrypt(key, nonce, aad, unaligned(sealed)))).toBe(toHex(plaintext));
    }
  });

  it("refuses an altered ciphertext, tag, nonce or associated data, and a cut one", () => {
    const key = nodeCrypto.randomBytes(32);
    const nonce = nodeCrypto.randomBytes(24);
    const aad = new TextEncoder().encode("relay response\0server\0device\0call");
    const sealed = native.encrypt(key, nonce, aad, new TextEncoder().encode("hello there"));
    const flip = (bytes: Uint8Array, at: number) => bytes.map((b, i) => (i === at ? b ^ 1 : b));
    for (const impl of [native, nobleXChaCha]) {
      expect(() => impl.decrypt(key, nonce, aad, flip(sealed, 0))).toThrow();
      expect(() => impl.decrypt(key, nonce, aad, flip(sealed, sealed.length - 1))).toThrow();
      expect(() => impl.decrypt(key, flip(nonce, 20), aad, sealed)).toThrow();
      expect(() => impl.decrypt(key, flip(nonce, 3), aad, sealed)).toThrow();
      expect(() => impl.decrypt(key, nonce, flip(aad, 2), sealed)).toThrow();
      expect(() => impl.decrypt(flip(key, 31), nonce, aad, sealed)).toThrow();
      expect(() => impl.decrypt(key, nonce, aad, sealed.subarray(0, 10))).toThrow();
    }
  });

  it("is noble until OpenSSL is asked for, which Node grants; noble again when asked", () => {
    // The plain default everywhere is the audited library; the server switches OpenSSL on (server/e2e/end-to-end.ts).
    expect(cipherInUse()).toBe("noble");
    expect(useCipher("openssl")).toBe("openssl");
    expect(cipherInUse()).toBe("openssl");
    expect(useCipher("noble")).toBe("noble");
  });

  it("leaves noble in use where the platform has no OpenSSL cipher (a browser)", async () => {
    vi.resetModules();
    vi.stubGlobal("process", { ...process, getBuiltinModule: undefined });
    try {
      const fresh = await import("../../client/wire/crypto/xchacha.ts");
      expect(fresh.useCipher("openssl")).toBe("noble");
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
