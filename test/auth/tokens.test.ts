// Token hashes (client/wire/crypto/token-hash.ts, the one form server and bridge keep and compare them in): SHA-256
// hex as Node computes it, compared in constant time; the same hash matches, any other does not, and a stored hash
// of another length (a hand-edited admin token file) or text that is not hex is refused instead of throwing on every
// request.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nobleSha256Hex, sameHash, sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { generateToken } from "../../server/auth/tokens.ts";

describe("token hashes", () => {
  it("match only the same hash", () => {
    const token = generateToken();
    expect(sameHash(sha256Hex(token), sha256Hex(token))).toBe(true);
    expect(sameHash(sha256Hex(token), sha256Hex(generateToken()))).toBe(false);
  });

  it("refuse a hash of another length, or text that is not hex, without throwing", () => {
    const hash = sha256Hex(generateToken());
    expect(sameHash(hash, hash.slice(0, 32))).toBe(false);
    expect(sameHash(hash, "")).toBe(false);
    expect(sameHash(hash, `${hash.slice(0, 63)}g`)).toBe(false);
    expect(sameHash(hash.slice(0, 63), hash.slice(0, 63))).toBe(false);
    expect(sameHash("not hex", hash)).toBe(false);
    expect(sameHash(hash, "not hex")).toBe(false);
  });

  it("are SHA-256 of the UTF-8 as 64 lowercase hex digits, as Node's hash gives them", () => {
    expect(sha256Hex("a")).toBe("ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb");
    for (const text of ["", generateToken(), "ÄÖü 🙂 code-123", "x".repeat(10_000)])
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
  });

  it("are the same from the portable hash (browsers, React Native) as from Node's", () => {
    for (const text of ["a", "", generateToken(), "ÄÖü 🙂 code-123", "lone \ud800 surrogate", "x".repeat(10_000)])
      expect(nobleSha256Hex(text)).toBe(sha256Hex(text));
  });

  it("are 32 random bytes as base64url", () => {
    expect(generateToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(generateToken());
  });
});
