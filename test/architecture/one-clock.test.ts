// One Clock type (docs/server.md "Time"): the wire contract's (client/wire/clock.ts) is the only clock interface;
// server, bridge and client each take time in through it and declare none of their own.
import { expect, it } from "vitest";
import { findIn, withoutLine } from "./support/source-code.ts";

const CODE = ["server", "bridge", "client"];

it("declares one clock interface, in the wire contract", () => {
  // A type with a `now(): number` member is a clock, whatever it is called.
  const clocks = findIn(CODE, /\bnow\(\):\s*number;/).map(withoutLine);
  expect(clocks).toEqual(["client/wire/clock.ts"]);
  // Declared as an interface once; the client's `Timers` is only its name for the same type.
  expect(
    findIn(CODE, /^(?:export\s+)?(?:interface\s+(?:Clock|Timers)\b|type\s+(?:Clock|Timers)\s*=)/m)
      .map(withoutLine)
      .sort(),
  ).toEqual(["client/util/timers.ts", "client/wire/clock.ts"]);
});

it("has server, bridge and client take the wire contract's Clock", () => {
  const importers = new Set(findIn(CODE, /from\s+"[./]*(?:client\/)?wire\/clock\.ts"/).map(withoutLine));
  expect([...importers].sort()).toEqual(["bridge/clock.ts", "client/util/timers.ts", "server/clock.ts"]);
});
