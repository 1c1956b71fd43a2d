// The log's one follower (server/events/event-follower.ts, docs/events.md "The follower"): each consumer gets the
// events of its types after its position, once, in order; a failing consumer neither stops the others nor loses
// its events; one fallen behind retention is told; the forwarder's wake comes at each commit.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { Transactor } from "../../server/db/transactor.ts";
import type { EventConsumer, StoredEvent } from "../../server/events/event-follower.ts";
import { EventFollower } from "../../server/events/event-follower.ts";
import { EventStore } from "../../server/events/event-store.ts";
import { tempDir } from "../support/server.ts";

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function open(maxEvents = 1_000_000) {
  const dir = tempDir();
  const db: Db = openDatabase(join(dir, "server.sqlite"));
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const transactor = new Transactor(db);
  const store = new EventStore(db, transactor, { maxEvents });
  /** Publishes events of these types in one committed transaction. */
  const publish = (...types: string[]) =>
    transactor.run(() => types.forEach((type) => store.publish({ type, session_id: "s1" })));
  return Object.assign(store, { publishAll: publish });
}

/**
 * A consumer that records what it was handed; `failNext` makes its next receive throw before it moves; `perTurn`
 * makes it take at most that many events a receive and stop for a turn.
 */
class Recorder implements EventConsumer {
  at = 0;
  received: Array<{ id: number; type: string }> = [];
  errors: unknown[] = [];
  behindAt: number[] = [];
  failNext = false;
  perTurn = Infinity;

  constructor(readonly types: readonly string[]) {}

  position(): number {
    return this.at;
  }
  behind(oldestValid: number): void {
    this.behindAt.push(oldestValid);
    this.at = oldestValid;
  }
  receive(events: StoredEvent[], through: number): boolean {
    if (this.failNext) {
      this.failNext = false;
      throw new Error("consumer broke");
    }
    if (events.length > this.perTurn) {
      const taken = events.slice(0, this.perTurn);
      this.received.push(...taken.map(({ id, type }) => ({ id, type })));
      this.at = taken[taken.length - 1]!.id;
      return false;
    }
    this.received.push(...events.map(({ id, type }) => ({ id, type })));
    this.at = through;
    return true;
  }
  failed(error: unknown): void {
    this.errors.push(error);
  }
}

const ids = (consumer: Recorder) => consumer.received.map((event) => event.id);

describe("EventFollower", () => {
  it("hands each consumer the events of its types after its position, once and in id order", () => {
    const store = open();
    const finals = new Recorder(["final"]);
    const both = new Recorder(["final", "session_deleted"]);
    store.follower.follow(finals);
    store.follower.follow(both);
    store.publishAll("final", "delta", "session_deleted", "final", "delta");
    store.follower.catchUp();
    store.follower.catchUp();
    expect(ids(finals)).toEqual([1, 4]);
    expect(ids(both)).toEqual([1, 3, 4]);
    // Both stand at the newest event, though the last one was of no type they read.
    expect([finals.at, both.at]).toEqual([5, 5]);
  });

  it("reads in pages, and a consumer that starts later gets only what follows its position", () => {
    const store = open();
    const follower = new EventFollower(store, 2);
    store.publishAll("final", "final", "final", "final", "final");
    const late = new Recorder(["final"]);
    late.at = 3;
    const early = new Recorder(["final"]);
    follower.follow(late);
    follower.follow(early);
    follower.catchUp();
    expect(ids(early)).toEqual([1, 2, 3, 4, 5]);
    expect(ids(late)).toEqual([4, 5]);
  });

  it("a consumer that throws is told, keeps its events for the next catch-up, and stops no other", () => {
    const store = open();
    const broken = new Recorder(["final"]);
    const fine = new Recorder(["final"]);
    store.follower.follow(broken);
    store.follower.follow(fine);
    store.publishAll("final");
    broken.failNext = true;
    store.follower.catchUp();
    expect(broken.errors).toHaveLength(1);
    expect(ids(broken)).toEqual([]);
    expect(ids(fine)).toEqual([1]);
    store.follower.catchUp();
    expect(ids(broken)).toEqual([1]);
    expect(ids(fine)).toEqual([1]);
  });

  it("a consumer that stops for a turn gets the rest on the next turns, by itself, and holds no other back", async () => {
    const store = open();
    const budgeted = new Recorder(["final"]);
    budgeted.perTurn = 2;
    const whole = new Recorder(["final"]);
    store.follower.follow(budgeted);
    store.follower.follow(whole);
    store.publishAll("final", "final", "final", "final", "final");
    store.follower.catchUp();
    expect(ids(budgeted)).toEqual([1, 2]);
    expect(ids(whole)).toEqual([1, 2, 3, 4, 5]);
    expect(budgeted.errors).toEqual([]);
    // No commit comes: the follower resumes it on the next turns.
    await new Promise((resolve) => setImmediate(resolve));
    expect(ids(budgeted)).toEqual([1, 2, 3, 4]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ids(budgeted)).toEqual([1, 2, 3, 4, 5]);
    expect(budgeted.at).toBe(5);
  });

  it("tells a consumer whose position was pruned away, and goes on from what is retained", () => {
    const store = open(2);
    for (let i = 0; i < 6; i++) store.publishAll("final");
    store.prune();
    const consumer = new Recorder(["final"]);
    store.follower.follow(consumer);
    store.follower.catchUp();
    expect(consumer.behindAt).toEqual([4]);
    expect(ids(consumer)).toEqual([5, 6]);
  });

  it("follows commits by itself after the committing turn, and wakes the forwarder at each commit", async () => {
    const store = open();
    const consumer = new Recorder(["final"]);
    const woken: number[] = [];
    store.follower.follow(consumer);
    store.follower.onCommitted((latest) => woken.push(latest));
    store.publishAll("final");
    expect(woken).toEqual([1]);
    expect(ids(consumer)).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ids(consumer)).toEqual([1]);
  });
});
