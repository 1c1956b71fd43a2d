// The pooled random source behind nonces and call ids: no draw repeats another (a rewound or reused pool would),
// across many pool refills, and every size comes out at its length.
import { describe, expect, it } from "vitest";
import { randomBytes } from "../../client/crypto/random.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("randomBytes", () => {
  it("never hands out the same bytes twice, across pool refills", () => {
    const seen = new Set<string>();
    for (let draw = 0; draw < 20_000; draw++) {
      const bytes = randomBytes(draw % 2 === 0 ? 18 : 24);
      expect(bytes.length).toBe(draw % 2 === 0 ? 18 : 24);
      seen.add(hex(bytes));
    }
    expect(seen.size).toBe(20_000);
  });

  it("draws of every size have their length, and a draw is not a view of shared memory", () => {
    for (const length of [0, 1, 31, 1024, 1025, 4096, 70_000]) expect(randomBytes(length).length).toBe(length);
    const first = randomBytes(16);
    expect(first.byteOffset).toBe(0);
    expect(first.buffer.byteLength).toBe(16);
  });
});
