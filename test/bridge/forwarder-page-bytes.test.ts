// Issue 11 item 14, the forwarder's half (docs/events.md E14): the forwarder reads its backlog through the store's
// byte-capped pages, so a bridge coming back to a log of whole-session events never makes the server build one
// page of every event in its window (up to 512 sessions of megabytes). Every page the forwarder was handed holds
// one event or at most the cap, and every event of the backlog reaches the bridge once.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MAX_PAGE_BYTES, type ListPage, type ListQuery } from "../../server/events/event-store.ts";
import { Stack, until } from "../client/support/stack.ts";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const KIB = 1024;
const bytesOf = (page: ListPage) =>
  page.events.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(event)), 0);

describe("the forwarder's reads", () => {
  it("take the backlog in pages of at most the byte cap (or one event), and relay all of it", async () => {
    stack = await Stack.start();
    const sessionId = await stack.createSession();
    await until(() => stack!.bridge!.core.metrics.eventsRelayed >= 2, "the session's creation relayed");
    const relayedThrough = stack.server.runtime.ctx.events.latestId;
    await stack.stopBridge();

    // Each message_appended carries the whole session: 6 appends of 400 KiB make about 8.4 MB of events.
    for (let i = 0; i < 6; i++) await stack.append(sessionId, `${i}`.padEnd(400 * KIB, "x"));
    const backlog = stack.server.runtime.ctx.events.latestId - relayedThrough;

    const events = stack.server.runtime.ctx.events;
    const list = events.list.bind(events);
    const pages: ListPage[] = [];
    events.list = (query: ListQuery) => {
      const page = list(query);
      pages.push(page);
      return page;
    };
    await stack.startBridge();
    await until(() => stack!.bridge!.core.metrics.eventsRelayed >= backlog, "the backlog relayed", 30_000);

    expect(stack.bridge!.core.metrics.eventsRelayed).toBe(backlog);
    const read = pages.flatMap((page) => page.events);
    expect(read.length).toBeGreaterThanOrEqual(backlog);
    for (const page of pages)
      if (page.events.length > 1) expect(bytesOf(page)).toBeLessThanOrEqual(DEFAULT_MAX_PAGE_BYTES);
    // The cap, not the count, ended a page: with no cap the whole backlog would have been one page.
    expect(pages.some((page) => page.hasMore && page.events.length < backlog)).toBe(true);
  }, 60_000);
});
