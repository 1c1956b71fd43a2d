// Exactly once, in order, or the loss reported (docs/client.md C1, C2): the client library's EventSequencer driven
// by a model of everything that feeds it. The server's log (visible and internal events, its store replaced with a
// new epoch), the bridge (joins from the cursor answered "complete" with a replay or "gap", live pushes, frames
// duplicated, the socket dropped and joined again) and the HTTP reader (pages from the cursor, 410 on another
// epoch, a bootstrap at the head) act in any generated interleaving, as client.ts and driver.ts wire them: a
// complete join trusts the bridge, a gap trusts it once an HTTP read reached the head, a 410 resets the cursor.
//
// After every step: since the last 410 (or the first bootstrap), the events delivered are exactly the visible events
// of the cursor's store after the segment's start and up to the cursor, in id order. So nothing is skipped, doubled
// or reordered; what a segment misses is only what a 410 reported (the app reloads snapshots then).
import fc from "fast-check";
import { describe, expect } from "vitest";
import { EventSequencer } from "../../client/connection/sequencer.ts";
import { formatEventId } from "../../client/wire/event-id.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { itHolds } from "../support/properties.ts";

type Op =
  | { kind: "publish"; visible: boolean }
  | { kind: "frame" }
  | { kind: "duplicate"; pick: number }
  | { kind: "page"; limit: number }
  | { kind: "join"; buffer: number }
  | { kind: "drop" }
  | { kind: "epoch"; base: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("publish"), visible: fc.boolean() }) },
  { weight: 6, arbitrary: fc.constant({ kind: "frame" }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("duplicate"), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("page"), limit: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("join"), buffer: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "drop" }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("epoch"), base: fc.integer({ min: 1, max: 30 }) }) },
) as fc.Arbitrary<Op>;

/** An event as the model tags it: which store it came from, so one of another epoch is caught. */
type Tagged = AnyEvent & { epoch: number };
type Item = { kind: "ack"; complete: boolean } | { kind: "event"; event: Tagged };

class World {
  epoch = 0;
  /** Each epoch's log: id → visible (internal events take ids too, but no reader returns them). */
  readonly logs: Array<Array<{ id: number; visible: boolean }>> = [[]];
  nextId = 1;
  /** The bridge socket: its frames not yet read by the app, and the events it already pushed (for duplicates). */
  bridge: { queue: Item[]; pushed: Tagged[]; subscribed: boolean } | undefined;
  /** The epoch the client's reader pinned; undefined before its first answer and after a 410. */
  readerEpoch: number | undefined;
  /** A gap answered: the bridge is trusted once an HTTP read reaches the head. */
  trustAfterCatchUp = false;
  /** Since the last 410 (or the start): the store and the id the segment began after; undefined before bootstrap. */
  segment: { epoch: number; after: number; delivered: Tagged[] } | undefined;
  losses = 0;
  readonly sequencer = new EventSequencer((event) => this.delivered(event as Tagged));

  private delivered(event: Tagged): void {
    if (!this.segment) throw new Error(`event ${event.event_id} delivered before the reader bootstrapped`);
    this.segment.delivered.push(event);
  }

  get log() {
    return this.logs[this.epoch]!;
  }

  private event(id: number): Tagged {
    return { event_id: formatEventId(id), type: "checkpoint", epoch: this.epoch } as Tagged;
  }

  run(step: Op): void {
    switch (step.kind) {
      case "publish": {
        const id = this.nextId++;
        this.log.push({ id, visible: step.visible });
        if (step.visible && this.bridge?.subscribed) this.bridge.queue.push({ kind: "event", event: this.event(id) });
        return;
      }
      case "frame":
        return this.frame();
      case "duplicate": {
        const pushed = this.bridge?.pushed ?? [];
        if (pushed.length > 0) this.sequencer.push(pushed[step.pick % pushed.length]!);
        return;
      }
      case "page":
        this.page(step.limit);
        return;
      case "join":
        return this.join(step.buffer);
      case "drop":
        return this.drop();
      case "epoch":
        // The server's store is replaced: ids start over, and the bridge ends every app socket of that server.
        this.drop();
        this.epoch++;
        this.logs.push([]);
        this.nextId = step.base;
        return;
    }
  }

  private frame(): void {
    const item = this.bridge?.queue.shift();
    if (!item) return;
    if (item.kind === "ack") {
      if (item.complete) this.sequencer.trust();
      else this.trustAfterCatchUp = true;
      return;
    }
    this.bridge!.pushed.push(item.event);
    this.sequencer.push(item.event);
  }

  /** The bridge's join from the cursor: a replay when its buffer holds every visible event after it, else a gap. */
  private join(buffer: number): void {
    if (this.bridge) return;
    const cursor = this.sequencer.cursor;
    const after = cursor === undefined ? undefined : Number(cursor);
    const missing = this.log.filter((e) => e.visible && after !== undefined && e.id > after);
    const complete = after !== undefined && this.readerEpoch === this.epoch && missing.length <= buffer;
    const queue: Item[] = [{ kind: "ack", complete }];
    if (complete) for (const { id } of missing) queue.push({ kind: "event", event: this.event(id) });
    this.bridge = { queue, pushed: [], subscribed: true };
  }

  private drop(): void {
    this.bridge = undefined;
    this.trustAfterCatchUp = false;
    this.sequencer.distrust();
  }

  /** One GET /events: bootstrap at the head without a cursor, 410 for another epoch, else a page from the cursor. */
  page(limit: number): "head" | "more" | "expired" {
    if (this.sequencer.cursor === undefined) {
      this.readerEpoch = this.epoch;
      const head = this.log.at(-1)?.id ?? 0;
      this.segment = { epoch: this.epoch, after: head, delivered: [] };
      this.sequencer.advanceTo(formatEventId(head));
    }
    if (this.readerEpoch !== this.epoch) {
      // 410: the loss is reported, the cursor and the pinned epoch forgotten (driver.ts reset_cursor).
      this.losses++;
      this.sequencer.reset();
      this.readerEpoch = undefined;
      this.segment = undefined;
      return "expired";
    }
    const since = Number(this.sequencer.cursor);
    const after = this.log.filter((e) => e.id > since);
    const page = after.slice(0, limit);
    for (const e of page) if (e.visible) this.sequencer.accept(this.event(e.id));
    const next = page.at(-1)?.id ?? this.log.at(-1)?.id ?? since;
    this.sequencer.advanceTo(formatEventId(Math.max(next, since)));
    if (after.length > limit) return "more";
    if (this.trustAfterCatchUp) {
      this.trustAfterCatchUp = false;
      this.sequencer.trust();
    }
    return "head";
  }

  /** The rule checked after every step (see the file's head). */
  check(): void {
    const cursor = this.sequencer.cursor;
    if (!this.segment || cursor === undefined) return;
    const { epoch, after, delivered } = this.segment;
    const upTo = Number(cursor);
    const expected = this.logs[epoch]!.filter((e) => e.visible && e.id > after && e.id <= upTo).map((e) => e.id);
    expect(delivered.map((e) => `${e.epoch}:${Number(e.event_id)}`)).toEqual(expected.map((id) => `${epoch}:${id}`));
  }

  /** Everything in flight arrives and HTTP reads to the head: nothing published in the last epoch is missing. */
  settle(): void {
    while (this.bridge && this.bridge.queue.length > 0) {
      this.frame();
      this.check();
    }
    for (let reads = 0; reads < 1000; reads++) {
      const outcome = this.page(4);
      this.check();
      if (outcome === "head") return;
    }
    throw new Error("HTTP never reached the head");
  }
}

describe("the client's sequencer under any interleaving of its sources", () => {
  itHolds(
    "delivers each visible event once and in order, or reports the loss as a 410",
    fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
      const world = new World();
      for (const step of ops) {
        world.run(step);
        world.check();
      }
      world.settle();
      // The last store's events after the last bootstrap were all delivered.
      const { segment } = world;
      const head = world.log.at(-1)?.id ?? 0;
      expect(Number(world.sequencer.cursor)).toBeGreaterThanOrEqual(head);
      expect(segment!.epoch).toBe(world.epoch);
      // A 410 was reported for every replaced store the client had read from (and never otherwise).
      expect(world.losses).toBeLessThanOrEqual(world.epoch);
    }),
    { runs: 300, ms: 60_000 },
  );
});
