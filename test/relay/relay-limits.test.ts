// The relay's admission (bridge/relay/relay-limits.ts) and its config schema (relay-config.ts), called directly on a
// manual clock: calls in flight and calls per one-second window are bounded per socket and per server, and a
// released call frees its place. Fast on purpose: mutation testing runs these for every mutant of the two files.
import { describe, expect, it } from "vitest";
import { DEFAULT_RELAY_CONFIG, relayConfigSchema, type RelayConfig } from "../../bridge/relay/relay-config.ts";
import { RelayLimits } from "../../bridge/relay/relay-limits.ts";
import { ManualClock } from "../bridge/manual-clock.ts";

const wide: RelayConfig = {
  timeoutMs: 1000,
  inFlightPerSocket: 100,
  inFlightPerServer: 100,
  perSocketPerSecond: 100,
  perServerPerSecond: 100,
};

function admitted(limits: RelayLimits, socket: string, server: string, times: number): number {
  let count = 0;
  for (let i = 0; i < times; i++) if (limits.admit(socket, server)) count++;
  return count;
}

describe("relay admission", () => {
  it("holds each socket to its calls in flight, and frees a place when one is released", () => {
    const limits = new RelayLimits(new ManualClock(), { ...wide, inFlightPerSocket: 2 });
    expect(admitted(limits, "s1", "v", 3)).toBe(2);
    expect(admitted(limits, "s2", "v", 1)).toBe(1);
    limits.release("s1", "v");
    expect(admitted(limits, "s1", "v", 2)).toBe(1);
  });

  it("holds a server to its calls in flight, all sockets together", () => {
    const limits = new RelayLimits(new ManualClock(), { ...wide, inFlightPerServer: 3 });
    expect(admitted(limits, "s1", "v", 2) + admitted(limits, "s2", "v", 2)).toBe(3);
    expect(admitted(limits, "s3", "other", 1)).toBe(1);
    limits.release("s1", "v");
    expect(admitted(limits, "s2", "v", 1)).toBe(1);
  });

  it("holds a socket to its calls per second, a new window starting a second later", () => {
    const clock = new ManualClock();
    const limits = new RelayLimits(clock, { ...wide, perSocketPerSecond: 2 });
    expect(admitted(limits, "s1", "v", 3)).toBe(2);
    expect(admitted(limits, "s2", "v", 1)).toBe(1);
    clock.advance(999);
    expect(admitted(limits, "s1", "v", 1)).toBe(0);
    clock.advance(1);
    expect(admitted(limits, "s1", "v", 3)).toBe(2);
  });

  it("holds a server to its calls per second, and a call refused by it is not counted in flight", () => {
    const clock = new ManualClock();
    const limits = new RelayLimits(clock, { ...wide, perServerPerSecond: 2, inFlightPerSocket: 3 });
    expect(admitted(limits, "s1", "v", 2) + admitted(limits, "s2", "v", 2)).toBe(2);
    clock.advance(1000);
    // s1 holds two in flight of its three: the refused one did not take the third place.
    expect(admitted(limits, "s1", "v", 3)).toBe(1);
  });

  it("a release brings a socket back to nothing held: it may fill its places again", () => {
    const limits = new RelayLimits(new ManualClock(), { ...wide, inFlightPerSocket: 1 });
    expect(admitted(limits, "s1", "v", 1)).toBe(1);
    limits.release("s1", "v");
    limits.release("s1", "v"); // a second release of nothing must not give a spare place
    expect(admitted(limits, "s1", "v", 2)).toBe(1);
  });
});

describe("relay config", () => {
  it("defaults suit a few phones", () => {
    expect(DEFAULT_RELAY_CONFIG).toEqual({
      timeoutMs: 30_000,
      inFlightPerSocket: 16,
      inFlightPerServer: 256,
      perSocketPerSecond: 200,
      perServerPerSecond: 20_000,
    });
  });

  it("takes any of the bounds as positive integers, and nothing else", () => {
    expect(relayConfigSchema.parse({})).toEqual({});
    expect(relayConfigSchema.parse({ timeoutMs: 1, perServerPerSecond: 5 })).toEqual({
      timeoutMs: 1,
      perServerPerSecond: 5,
    });
    for (const key of Object.keys(DEFAULT_RELAY_CONFIG)) {
      expect(relayConfigSchema.safeParse({ [key]: 1 }).success).toBe(true);
      for (const bad of [0, 1.5, "2"]) expect(relayConfigSchema.safeParse({ [key]: bad }).success).toBe(false);
    }
    expect(relayConfigSchema.safeParse({ timeout: 5 }).success).toBe(false);
  });
});
