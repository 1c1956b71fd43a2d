// The random source behind nonces and call ids, behind its seam (client/wire/crypto/random.ts): the platform's CSPRNG per
// draw by default, and the pool the server switches on. In both no draw repeats another (a rewound or reused pool
// would), across many pool refills, and every size comes out at its length in memory of its own.
import { afterEach, describe, expect, it } from "vitest";
import { randomBytes, randomInUse, useRandom } from "../../client/wire/crypto/random.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

afterEach(() => void useRandom("platform"));

describe("randomBytes", () => {
  it("is the platform's per draw until the pool is asked for", () => {
    expect(randomInUse()).toBe("platform");
    expect(useRandom("pooled")).toBe("pooled");
    expect(randomInUse()).toBe("pooled");
  });

  describe.each(["platform", "pooled"] as const)("%s", (name) => {
    it("never hands out the same bytes twice, across pool refills", () => {
      useRandom(name);
      const seen = new Set<string>();
      for (let draw = 0; draw < 20_000; draw++) {
        const bytes = randomBytes(draw % 2 === 0 ? 18 : 24);
        expect(bytes.length).toBe(draw % 2 === 0 ? 18 : 24);
        seen.add(hex(bytes));
      }
      expect(seen.size).toBe(20_000);
    });

    it("draws of every size have their length, and a draw is not a view of shared memory", () => {
      useRandom(name);
      for (const length of [0, 1, 31, 1024, 1025, 4096, 70_000]) expect(randomBytes(length).length).toBe(length);
      const first = randomBytes(16);
      expect(first.byteOffset).toBe(0);
      expect(first.buffer.byteLength).toBe(16);
    });
  });
});
