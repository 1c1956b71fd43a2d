// ReplayBuffer bounds (docs/bridge.md B20, B30): the oldest events go when either the count or the payload bound is
// passed, and the buffer then vouches only for since_ids from the newest evicted id on: a gap, never a partial replay.
import { afterEach, describe, expect, it } from "vitest";
import { formatEventId } from "../../client/wire/index.ts";
import { ReplayBuffer, type BufferedEvent } from "../../bridge/fanout/replay-buffer.ts";
import { DurableStore } from "../../bridge/state/durable-store.ts";
import { Registry } from "../../bridge/state/registry.ts";
import { CREDENTIAL, runCleanups, tempDir } from "./helpers.ts";

afterEach(runCleanups);

const id = (sequence: number) => formatEventId(sequence);

/** An event whose payloadJson is exactly `length` characters. */
function event(sequence: number, length = 10): BufferedEvent {
  return { id: id(sequence), payloadJson: "x".repeat(length) };
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
    expect(held.reduce((sum, e) => sum + e.payloadJson.length, 0)).toBe(buffer.payloadBytes);
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

  it("the registry gives each server a buffer with both bounds", () => {
    const limited = new Registry(new DurableStore(tempDir()), { events: 100, bytes: 50 });
    const auth = limited.authenticateServer("srv1", CREDENTIAL);
    if (!auth.ok) throw new Error("registration refused");
    auth.state.buffer.reset(id(0));
    auth.state.buffer.push(event(1, 30));
    auth.state.buffer.push(event(2, 30));
    expect(ids(auth.state.buffer.after(id(1)))).toEqual([id(2)]);
    expect(auth.state.buffer.after(id(0))).toBeUndefined();

  });
});
