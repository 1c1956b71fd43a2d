// One reader of the event log (docs/events.md "The follower"): the event store is the only code that reads the
// events table (schema migrations aside), and the follower the only code that follows its commits; search
// indexing, push triggers and the forwarder take what they need from it.
import { expect, it } from "vitest";
import { findIn, withoutLine } from "./support/source-code.ts";

const CODE = ["server", "bridge", "client", "app/src", "scripts"];

/** SQL that reads the events table. */
const READS_EVENTS = /\b(?:FROM|JOIN)\s+events\b/i;
const MIGRATIONS = "server/db/migrations.ts";

it("counts one reader of the events table: the event store", () => {
  const readers = new Set(
    findIn(CODE, READS_EVENTS)
      .map(withoutLine)
      .filter((file) => file !== MIGRATIONS),
  );
  expect([...readers]).toEqual(["server/events/event-store.ts"]);
});

it("counts one follower of the log's commits, and one follower made", () => {
  const subscribers = findIn(["server"], /\bcommits\.subscribe\(/).map(withoutLine);
  expect(subscribers).toEqual(["server/events/event-follower.ts"]);
  expect(findIn(["server"], /\bnew EventFollower\(/).map(withoutLine)).toEqual(["server/events/event-store.ts"]);
  // Search and push are its consumers, and the forwarder is woken by it.
  expect(
    findIn(["server"], /\bfollower\.follow\(/)
      .map(withoutLine)
      .sort(),
  ).toEqual(["server/push/push-service.ts", "server/search/indexer.ts"]);
  expect(findIn(["server"], /\bfollower\.onCommitted\(/).map(withoutLine)).toEqual(["server/forwarder/forwarder.ts"]);
});
