// Pairing codes (server/pairing/codes.ts): the printed form the app and the admin type (two groups of five Crockford
// base32 characters), and the one hash the server and the bridge keep of a code, the same for every way of typing it.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PAIRING_CODE_ALPHABET } from "../../client/wire/frames.ts";
import { CODE_LENGTH, generatePairingCode, hashPairingCode } from "../../server/pairing/codes.ts";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("pairing codes", () => {
  it("are printed as XXXXX-XXXXX, ten characters of the typeable alphabet (no I, L, O, U)", () => {
    expect(CODE_LENGTH).toBe(10);
    const codes = Array.from({ length: 200 }, generatePairingCode);
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
    // Random over the whole alphabet: 2,000 draws of 32 symbols leave none out but with odds below 1e-25.
    const seen = new Set(codes.join("").replace(/-/g, ""));
    expect([...seen].sort().join("")).toBe(PAIRING_CODE_ALPHABET);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("are kept as SHA-256 of the normalised code, however the code is typed", () => {
    const hash = sha256("0123456789");
    expect(hashPairingCode("01234-56789")).toBe(hash);
    for (const typed of ["0123456789", "o1234-56789", " O1234 56789 ", "0i234-5678 9", "0L23456789"]) {
      expect(hashPairingCode(typed), typed).toBe(hash);
    }
    expect(hashPairingCode("ABCDE-FGHJK")).toBe(sha256("ABCDEFGHJK"));
    expect(hashPairingCode("abcde-fghjk")).toBe(sha256("ABCDEFGHJK"));
    expect(hashPairingCode("ABCDE-FGHJM")).not.toBe(hashPairingCode("ABCDE-FGHJK"));
  });
});
