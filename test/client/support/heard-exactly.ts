// The check that a device heard the store's events exactly once and in order, apart from stack.ts so that the stack
// imports nothing from vitest (scripts/screenshots.ts starts one outside vitest).
import { expect } from "vitest";
import type { AnyEvent } from "../../../client/wire/events.ts";
import { until, type Stack } from "./stack.ts";

/** Waits until `heard` holds every event the store has after `start`, then checks it holds exactly those, in order. */
export async function expectExactly(stack: Stack, heard: AnyEvent[], start: string): Promise<void> {
  const expected = (await stack.storeEvents()).filter((event) => event.event_id > start).map((event) => event.event_id);
  await until(() => heard.length >= expected.length, `all ${expected.length} events`);
  expect(heard.map((event) => event.event_id)).toEqual(expected);
}
