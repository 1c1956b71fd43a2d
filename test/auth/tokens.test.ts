// Token hashes compared in constant time (server/auth/tokens.ts): the same hash matches, any other does not, and a
// stored hash of another length (a hand-edited admin token file) is refused instead of throwing on every request.
import { describe, expect, it } from "vitest";
import { generateToken, hashToken, sameHash } from "../../server/auth/tokens.ts";

describe("token hashes", () => {
  it("match only the same hash", () => {
    const token = generateToken();
    expect(sameHash(hashToken(token), hashToken(token))).toBe(true);
    expect(sameHash(hashToken(token), hashToken(generateToken()))).toBe(false);
  });

  it("refuse a hash of another length without throwing", () => {
    const hash = hashToken(generateToken());
    expect(sameHash(hash, hash.slice(0, 32))).toBe(false);
    expect(sameHash(hash, "")).toBe(false);
  });

  it("are 32 random bytes as base64url, hashed to 64 hex characters", () => {
    expect(generateToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(generateToken());
    expect(hashToken("a")).toBe("ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb");
  });
});
