// The base64 helpers against Node's own encoder, for every length up to 5000 (all three tail shapes many times),
// in both the Buffer path and the table path browsers run, and strict refusal of text no encoder produces.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fromBase64Url, toBase64Url } from "../../client/wire/crypto/bytes.ts";

/** A fresh copy of a module, loaded with or without the global Buffer: each picks its code path when it loads. */
async function loadFresh<T>(withBuffer: boolean, load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  if (!withBuffer) vi.stubGlobal("Buffer", undefined);
  try {
    return await load();
  } finally {
    vi.unstubAllGlobals();
  }
}

const loadBase64 = (withBuffer: boolean) => loadFresh(withBuffer, () => import("../../client/util/base64.ts"));
const loadBytes = (withBuffer: boolean) => loadFresh(withBuffer, () => import("../../client/wire/crypto/bytes.ts"));

function sameBytes(actual: Uint8Array | undefined, expected: Uint8Array): boolean {
  return (
    actual instanceof Uint8Array && Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength).equals(expected)
  );
}

const lengths = Array.from({ length: 5001 }, (_, length) => length);

describe.each([
  ["with Buffer", true],
  ["without Buffer (browsers)", false],
])("base64 %s", (_name, withBuffer) => {
  afterEach(() => vi.unstubAllGlobals());

  it("encodes and decodes exactly as Buffer does, for every length 0..5000", async () => {
    const base64 = await loadBase64(withBuffer);
    for (const length of lengths) {
      const bytes = new Uint8Array(randomBytes(length));
      const url = Buffer.from(bytes).toString("base64url");
      const standard = Buffer.from(bytes).toString("base64");
      // Plain comparisons: expect's deep equality on thousands of arrays would take minutes.
      if (base64.bytesToBase64Url(bytes) !== url) expect(base64.bytesToBase64Url(bytes)).toBe(url);
      if (base64.bytesToBase64(bytes) !== standard) expect(base64.bytesToBase64(bytes)).toBe(standard);
      if (!sameBytes(base64.base64UrlToBytes(url), bytes)) expect(base64.base64UrlToBytes(url)).toEqual(bytes);
      if (!sameBytes(base64.base64ToBytes(standard), bytes)) expect(base64.base64ToBytes(standard)).toEqual(bytes);
    }
  });

  it("encodes a view into a larger buffer by its own bytes only", async () => {
    const base64 = await loadBase64(withBuffer);
    const whole = new Uint8Array(randomBytes(64));
    const view = whole.subarray(5, 42);
    expect(base64.bytesToBase64Url(view)).toBe(Buffer.from(view).toString("base64url"));
  });

  it("refuses text that is not unpadded base64url", async () => {
    const base64 = await loadBase64(withBuffer);
    for (const text of ["a", "abcde", "ab+c", "ab/c", "ab=", "abc=", "ab c", "ab\nc", "abé", "ab\u0100c", "AAA*"]) {
      expect(base64.base64UrlToBytes(text), text).toBeUndefined();
    }
    expect(() => base64.base64ToBytes("ab-c")).toThrow();
    expect(() => base64.base64ToBytes("a===")).toThrow();
    expect(() => base64.base64ToBytes("abcde")).toThrow();
  });
});

describe.each([
  ["with Buffer", true],
  ["without Buffer: atob/btoa (browsers)", false],
])("crypto base64url %s", (_name, withBuffer) => {
  it("encodes and decodes exactly as Buffer does, for every length 0..5000", async () => {
    const bytes64 = await loadBytes(withBuffer);
    for (const length of lengths) {
      const bytes = new Uint8Array(randomBytes(length));
      const url = Buffer.from(bytes).toString("base64url");
      if (bytes64.toBase64Url(bytes) !== url) expect(bytes64.toBase64Url(bytes)).toBe(url);
      if (!sameBytes(bytes64.fromBase64Url(url), bytes)) expect(bytes64.fromBase64Url(url)).toEqual(bytes);
    }
    const whole = new Uint8Array(randomBytes(64));
    expect(bytes64.toBase64Url(whole.subarray(5, 42))).toBe(Buffer.from(whole.subarray(5, 42)).toString("base64url"));
  });

  it("refuses every text but the one encoding of its bytes", async () => {
    const bytes64 = await loadBytes(withBuffer);
    const wrong = [
      "a",
      "abcde",
      "ab+c",
      "ab/c",
      "ab=",
      "abc=",
      "ab c",
      " abc",
      "abc\n",
      "ab\nc",
      "abé",
      "ab\u0100c",
      "AAA*",
    ];
    // Leftover bits set in the last character: the platforms' decoders drop them, so two texts would give one value.
    const nonCanonical = ["AB", "AAB", "AAAAAB", "AAAAAAB", "_x", "__9"];
    for (const text of [...wrong, ...nonCanonical]) {
      expect(bytes64.fromBase64Url(text), JSON.stringify(text)).toBeUndefined();
    }
    expect(bytes64.fromBase64Url("AA")).toEqual(new Uint8Array([0]));
    expect(bytes64.fromBase64Url("_w")).toEqual(new Uint8Array([255]));
    expect(bytes64.fromBase64Url("_w8")).toEqual(new Uint8Array([255, 15]));
  });

  it("accepts a text exactly when encoding its bytes again gives it, for every text of up to 2 characters and every ending of up to 2 after 1 and 4 (lengths 0 to 6)", async () => {
    const bytes64 = await loadBytes(withBuffer);
    // The URL alphabet, the standard one's two, padding, a space and a letter outside ASCII.
    const characters = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", ..."+/= é"];
    const tails = ["", ...characters, ...characters.flatMap((a) => characters.map((b) => a + b))];
    // Every tail of 0..2 characters after "", "A" and "AAAA" (lengths 0..6, each leftover 0..3), and every character
    // last in a 3-character text.
    const texts = ["", "A", "AAAA"].flatMap((head) => tails.map((tail) => head + tail));
    texts.push(...characters.map((last) => `_w${last}`));
    const disagreeing = texts.filter((text) => {
      const strict = Buffer.from(text, "base64url").toString("base64url") === text;
      return (bytes64.fromBase64Url(text) !== undefined) !== strict;
    });
    expect(disagreeing).toEqual([]);
  });
});

describe("crypto bytes", () => {
  it("checks the decoded length when one is asked for", () => {
    const nonce = new Uint8Array(randomBytes(24));
    expect(fromBase64Url(toBase64Url(nonce), 24)).toEqual(nonce);
    expect(fromBase64Url(toBase64Url(nonce), 23)).toBeUndefined();
    expect(fromBase64Url(toBase64Url(nonce) + "A")).toBeUndefined();
    expect(fromBase64Url("")).toEqual(new Uint8Array(0));
  });
});
