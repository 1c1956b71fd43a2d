// ReplayBuffer bounds (docs/bridge.md B20, B30, B40): the oldest events go when either the count or the payload bound
// is passed, and the buffer then vouches only for since_ids from the newest evicted id on: a gap, never a partial
// replay. Out-of-order arrivals (an event behind newer ones, or one whose `after` lies beyond what arrived) are holes:
// a since_id in or before one is a gap.
import { afterEach, describe, expect, it } from "vitest";
import { formatEventId } from "../../client/wire/index.ts";
import { ReplayBuffer, type BufferedEvent } from "../../bridge/fanout/replay-buffer.ts";
import { soleAudienceEvent } from "../../bridge/fanout/audience.ts";
import { DurableStore } from "../../bridge/state/durable-store.ts";
import { Registry } from "../../bridge/state/registry.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { CREDENTIAL, runCleanups, tempDir } from "./helpers.ts";

afterEach(runCleanups);

const id = (sequence: number) => formatEventId(sequence);

/** An event whose one form is exactly `length` characters. */
function event(sequence: number, length = 10): BufferedEvent {
  return soleAudienceEvent(id(sequence), { payloadJson: "x".repeat(length) });
}

const ids = (events: BufferedEvent[] | undefined) => events?.map((e) => e.id);

describe("ReplayBuffer", () => {
  it("replays everything after a covered since_id, and says gap before it", () => {
    const buffer = new ReplayBuffer(10);
    expect(buffer.after(id(0))).toBeUndefined(); // nothing known yet
    buffer.reset(id(0));
    for (let i = 1; i <= 3; i++) buffer.push(event(i));
    expect(ids(buffer.after(id(0)))).toEqual([id(1), id(2), id(3)]);
    expect(ids(buffer.after(id(2)))).toEqual([id(3)]);
    expect(buffer.after(id(3))).toEqual([]);
  });

  it("count eviction moves the covered range past the evicted events", () => {
    const buffer = new ReplayBuffer(3);
    buffer.reset(id(0));
    for (let i = 1; i <= 5; i++) buffer.push(event(i));
    expect(buffer.size).toBe(3);
    // 1 and 2 are gone: a since_id before 2 cannot be fully covered.
    expect(buffer.after(id(0))).toBeUndefined();
    expect(buffer.after(id(1))).toBeUndefined();
    expect(ids(buffer.after(id(2)))).toEqual([id(3), id(4), id(5)]);
  });

  it("byte eviction drops the oldest until the payload fits, and covers only from the newest evicted id", () => {
    const buffer = new ReplayBuffer(1000, 100);
    buffer.reset(id(0));
    for (let i = 1; i <= 4; i++) buffer.push(event(i, 25));
    expect(buffer.payloadBytes).toBe(100);
    expect(ids(buffer.after(id(0)))).toEqual([id(1), id(2), id(3), id(4)]);
    // 60 more characters: 1, 2 and 3 must go (100 + 60 - 25 - 25 - 25 = 85 ≤ 100; two would leave 110).
    buffer.push(event(5, 60));
    expect(buffer.size).toBe(2);
    expect(buffer.payloadBytes).toBe(85);
    expect(buffer.after(id(0))).toBeUndefined();
    expect(buffer.after(id(2))).toBeUndefined();
    expect(ids(buffer.after(id(3)))).toEqual([id(4), id(5)]);
    expect(ids(buffer.after(id(4)))).toEqual([id(5)]);
  });

  it("an event alone over the byte bound evicts itself: the buffer stays truthful (empty, covered after it)", () => {
    const buffer = new ReplayBuffer(1000, 100);
    buffer.reset(id(0));
    buffer.push(event(1, 10));
    buffer.push(event(2, 500));
    expect(buffer.size).toBe(0);
    expect(buffer.payloadBytes).toBe(0);
    expect(buffer.after(id(1))).toBeUndefined();
    expect(buffer.after(id(2))).toEqual([]);
    buffer.push(event(3, 10));
    expect(ids(buffer.after(id(2)))).toEqual([id(3)]);
  });

  it("holds both bounds over a long run, with compaction, and reset forgets the payload", () => {
    const buffer = new ReplayBuffer(50, 1000);
    buffer.reset(id(0));
    for (let i = 1; i <= 5000; i++) {
      buffer.push(event(i, 1 + (i % 97)));
      expect(buffer.size).toBeLessThanOrEqual(50);
      expect(buffer.payloadBytes).toBeLessThanOrEqual(1000);
    }
    const held = buffer.after(id(5000 - buffer.size))!;
    expect(ids(held)).toEqual(Array.from({ length: buffer.size }, (_, k) => id(5001 - buffer.size + k)));
    expect(held.reduce((sum, e) => sum + e.forms[0]!.json.length, 0)).toBe(buffer.payloadBytes);
    expect(buffer.after(id(4999 - buffer.size))).toBeUndefined();
    buffer.reset(id(5000));
    expect(buffer.payloadBytes).toBe(0);
    expect(buffer.after(id(5000))).toEqual([]);
  });

  it("a capacity of 0 holds nothing and covers from the last event", () => {
    const buffer = new ReplayBuffer(0);
    buffer.reset(id(0));
    buffer.push(event(1));
    expect(buffer.size).toBe(0);
    expect(buffer.after(id(0))).toBeUndefined();
    expect(buffer.after(id(1))).toEqual([]);
  });

  it("an event arriving behind newer ones reveals a hole: a since_id in or before it is a gap, never complete (B40)", () => {
    // Issue 11: reset at the join's cursor 516, then stale pushes 541, 542 ran ahead of the resend 517, 518...
    const buffer = new ReplayBuffer(100);
    buffer.reset(id(516));
    expect(buffer.push(event(541))).toBe("next");
    expect(buffer.push(event(542))).toBe("next");
    expect(buffer.push(event(517))).toBe("late");
    // Once the range has moved past the hole, the rest of the resend is behind it.
    expect(buffer.push(event(518))).toBe("duplicate");
    expect(buffer.after(id(516))).toBeUndefined();
    expect(buffer.after(id(517))).toBeUndefined();
    expect(buffer.after(id(540))).toBeUndefined();
    // From the first event held above the hole on, the buffer is whole again.
    expect(ids(buffer.after(id(541)))).toEqual([id(542)]);
    expect(buffer.push(event(543))).toBe("next");
    expect(ids(buffer.after(id(541)))).toEqual([id(542), id(543)]);
    // The late events were never inserted behind what apps already had live, and 541 itself serves no since_id now.
    expect(buffer.size).toBe(2);
    expect(ids(buffer.after(id(542)))).toEqual([id(543)]);
  });

  it("a late event above every held one leaves nothing to vouch for below the newest id", () => {
    const buffer = new ReplayBuffer(100);
    buffer.reset(id(10));
    buffer.push(event(11));
    buffer.push(event(13, 500));
    // 13 is held; 12 arrives late: only a since_id of 13 on is complete.
    expect(buffer.push(event(12))).toBe("late");
    expect(buffer.after(id(12))).toBeUndefined();
    expect(buffer.after(id(13))).toEqual([]);
    expect(buffer.payloadBytes).toBe(0);
  });

  it("a resend of what it holds, or of what it no longer covers, is a duplicate and changes nothing", () => {
    const buffer = new ReplayBuffer(3);
    buffer.reset(id(0));
    for (let i = 1; i <= 5; i++) buffer.push(event(i));
    expect(buffer.push(event(4))).toBe("duplicate");
    expect(buffer.push(event(5))).toBe("duplicate");
    expect(buffer.push(event(1))).toBe("duplicate");
    expect(ids(buffer.after(id(2)))).toEqual([id(3), id(4), id(5)]);
  });

  it("an event whose `after` lies beyond the newest id restarts the range after the hole", () => {
    const buffer = new ReplayBuffer(100);
    buffer.reset(id(516));
    expect(buffer.push(event(517), id(516))).toBe("next");
    // The sender says 541 follows 540: 518..540 never arrived.
    expect(buffer.push(event(541), id(540))).toBe("after_hole");
    expect(buffer.after(id(516))).toBeUndefined();
    expect(buffer.after(id(539))).toBeUndefined();
    expect(ids(buffer.after(id(540)))).toEqual([id(541)]);
    // An `after` at or below the newest id is no hole (the sender vouches nothing lies between).
    expect(buffer.push(event(545), id(541))).toBe("next");
    expect(buffer.push(event(546), id(530))).toBe("next");
    expect(ids(buffer.after(id(540)))).toEqual([id(541), id(545), id(546)]);
    // The resend behind it is dropped.
    expect(buffer.push(event(518), id(517))).toBe("duplicate");
  });

  it("the registry gives each server a buffer with both bounds", () => {
    const limited = new Registry(new DurableStore(tempDir()), { events: 100, bytes: 50 });
    limited.register("srv1", sha256Hex(CREDENTIAL));
    const auth = limited.authenticateServer("srv1", CREDENTIAL);
    if (!auth.ok) throw new Error("registration refused");
    auth.state.buffer.reset(id(0));
    auth.state.buffer.push(event(1, 30));
    auth.state.buffer.push(event(2, 30));
    expect(ids(auth.state.buffer.after(id(1)))).toEqual([id(2)]);
    expect(auth.state.buffer.after(id(0))).toBeUndefined();
  });
});
