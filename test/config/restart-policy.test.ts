// scripts/start/restart-policy.ts: when `npm start` restarts a child (docs/security.md "npm start", S-N1). Times
// are given, not waited for.
import { describe, expect, it } from "vitest";
import { RESTART, RestartPolicy } from "../../scripts/start/restart-policy.ts";

describe("restart policy", () => {
  it("waits 0.5 s, doubling up to 30 s, for a child that keeps dying quickly", () => {
    const policy = new RestartPolicy();
    const delays: number[] = [];
    let now = 0;
    for (let i = 0; i < 10; i++) {
      // Exits spaced more than the burst window apart: only the doubling is seen.
      now += RESTART.burstWindowMs + 1;
      delays.push(policy.onExit(now - 1_000, now).delayMs);
    }
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it("starts over at 0.5 s once the child stayed up 30 s", () => {
    const policy = new RestartPolicy();
    policy.onExit(0, 100);
    policy.onExit(1_000, 1_100);
    expect(policy.onExit(2_000, 2_000 + RESTART.stableAfterMs).delayMs).toBe(500);
  });

  it("says once that a child keeps exiting on its fifth exit within 60 s, and retries every 30 s", () => {
    const policy = new RestartPolicy();
    const decisions = [0, 1, 2, 3, 4].map((i) => policy.onExit(i * 1_000, i * 1_000 + 100));
    expect(decisions.map((d) => d.keepsExiting)).toEqual([false, false, false, false, true]);
    expect(decisions[4]!.delayMs).toBe(30_000);
    const next = policy.onExit(40_000, 40_100);
    expect(next).toEqual({ delayMs: 30_000, keepsExiting: false });
  });
});
