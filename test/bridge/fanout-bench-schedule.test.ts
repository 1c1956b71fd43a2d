// The fan-out benchmark's schedule (scripts/bench/fanout/schedule.ts; docs/benchmarks.md "Bridge: 10,000 sockets
// against the raw broadcaster"): the raw baseline stamps each frame with the time its slot was due, so a sender that
// runs late shows its lateness. The due times must follow the schedule, not the moment the loop got to the slot.
import { describe, expect, it } from "vitest";
import { scheduleSlots } from "../../scripts/bench/fanout/schedule.ts";

describe("fan-out benchmark schedule", () => {
  it("hands every slot the time it was due, even when the sender runs late", async () => {
    const dues: number[] = [];
    const ran: number[] = [];
    await scheduleSlots(4, 1000, (slot, dueAt) => {
      dues.push(dueAt);
      // A sender blocked for 5 ms per slot: every slot after the first runs late.
      const until = performance.now() + 5;
      while (performance.now() < until);
      ran.push(performance.timeOrigin + performance.now());
      expect(slot).toBe(dues.length - 1);
    });
    expect(dues.map((due) => Math.round((due - dues[0]!) * 1000) / 1000)).toEqual([0, 1, 2, 3]);
    // The sender was late (it finished each slot after the next one was due), and the stamps did not follow it.
    expect(ran[3]! - dues[3]!).toBeGreaterThan(4);
  });
});
