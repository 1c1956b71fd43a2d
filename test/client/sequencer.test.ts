// Exactly once, in order (C1, C2): the sequencer over interleavings of sources, including held bridge pushes.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventSequencer } from "../../client/connection/sequencer.ts";
import { formatEventId } from "../../client/wire/event-id.ts";
import type { AnyEvent } from "../../client/wire/events.ts";

const ev = (n: number): AnyEvent => ({ event_id: formatEventId(n), type: "checkpoint" });

function collect() {
  const out: string[] = [];
  const sequencer = new EventSequencer((event) => out.push(event.event_id));
  return { out, sequencer };
}

describe("event sequencer", () => {
  it("resolves a truncated push to the whole event and keeps later pushes behind it, in order (C17)", async () => {
    const out: AnyEvent[] = [];
    const fetches: Array<{ id: string; release: (whole: AnyEvent | undefined) => void; signal: AbortSignal }> = [];
    const sequencer = new EventSequencer(
      (event) => out.push(event),
      (stub, signal) => new Promise((release) => fetches.push({ id: stub.event_id, release, signal })),
    );
    sequencer.trust();
    sequencer.push(ev(1));
    sequencer.push({ ...ev(2), truncated: true });
    sequencer.push(ev(3));
    sequencer.push({ ...ev(4), truncated: true });
    sequencer.push(ev(5));
    expect(out.map((e) => e.event_id)).toEqual([formatEventId(1)]);
    expect(fetches.map((f) => f.id)).toEqual([2, 4].map(formatEventId));
    fetches[1]!.release({ ...ev(4), whole: true });
    await Promise.resolve();
    expect(out).toHaveLength(1);
    fetches[0]!.release({ ...ev(2), whole: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.map((e) => e.event_id)).toEqual([1, 2, 3, 4, 5].map(formatEventId));
    expect(out.filter((e) => "truncated" in e)).toEqual([]);
    expect(out.filter((e) => "whole" in e).map((e) => e.event_id)).toEqual([2, 4].map(formatEventId));

    // A stub at or below the cursor is a duplicate: not fetched. Distrust drops what waits and aborts the fetch.
    sequencer.push({ ...ev(5), truncated: true });
    expect(fetches).toHaveLength(2);
    sequencer.push({ ...ev(6), truncated: true });
    sequencer.push(ev(7));
    sequencer.distrust();
    expect(fetches[2]!.signal.aborted).toBe(true);
    fetches[2]!.release(ev(6));
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.map((e) => e.event_id).at(-1)).toBe(formatEventId(5));
  });

  it("drops what is at or below the cursor", () => {
    const { out, sequencer } = collect();
    for (const n of [1, 2, 2, 1, 3]) sequencer.accept(ev(n));
    expect(out).toEqual([1, 2, 3].map(formatEventId));
    expect(sequencer.duplicates).toBe(2);
  });

  it("holds untrusted bridge pushes and releases them in id order on trust", () => {
    const { out, sequencer } = collect();
    sequencer.accept(ev(1));
    sequencer.push(ev(4));
    sequencer.push(ev(3));
    expect(out).toEqual([formatEventId(1)]);
    sequencer.accept(ev(2));
    sequencer.accept(ev(3));
    sequencer.trust();
    sequencer.push(ev(5));
    expect(out).toEqual([1, 2, 3, 4, 5].map(formatEventId));
  });

  it("forgets held pushes when the bridge drops", () => {
    const { out, sequencer } = collect();
    sequencer.push(ev(7));
    sequencer.distrust();
    sequencer.trust();
    expect(out).toEqual([]);
  });

  it("advances over ids an HTTP page skipped (internal or compacted events)", () => {
    const { out, sequencer } = collect();
    sequencer.advanceTo(formatEventId(10));
    sequencer.push(ev(9));
    sequencer.trust();
    sequencer.push(ev(11));
    expect(out).toEqual([formatEventId(11)]);
  });

  it("delivers every id once and in order whatever the interleaving of two complete sources", () => {
    // Two sources, each complete from a start at or before the cursor: HTTP pages and a trusted bridge.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.boolean(), { maxLength: 200 }),
        fc.integer({ min: 0, max: 30 }),
        (total, picks, bridgeStart) => {
          const { out, sequencer } = collect();
          const start = Math.min(bridgeStart, total);
          for (let n = 1; n <= start; n++) sequencer.accept(ev(n));
          sequencer.trust();
          let http = start + 1;
          let bridge = start + 1;
          for (const pick of picks) {
            if (pick && http <= total) sequencer.accept(ev(http++));
            else if (!pick && bridge <= total) sequencer.push(ev(bridge++));
          }
          while (http <= total) sequencer.accept(ev(http++));
          expect(out).toEqual(Array.from({ length: total }, (_, i) => formatEventId(i + 1)));
        },
      ),
    );
  });
});
