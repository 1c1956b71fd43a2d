// EventReader against a scripted /events (docs/client.md C29): a catch-up follows has_more page by page and stops
// at the head; a page that says "more" without moving the cursor fails the catch-up instead of spinning forever.
import { describe, expect, it } from "vitest";
import { ProtocolError } from "../../client/transport/errors.ts";
import { EventReader, type ReaderSink } from "../../client/transport/event-reader.ts";
import { formatEventId } from "../../client/wire/index.ts";
import { FakeServer } from "./support/fake-http.ts";

function sinkFrom(start: number): ReaderSink & { cursorNow: () => string | undefined } {
  let cursor: string | undefined = formatEventId(start);
  return {
    cursor: () => cursor,
    cursorNow: () => cursor,
    accept: () => undefined,
    advanceTo: (next) => void (cursor = next),
    malformed: () => undefined,
  };
}

describe("EventReader.catchUp", () => {
  it("follows has_more until the head", async () => {
    const server = new FakeServer();
    const pages = [
      { events: [], next_since_id: formatEventId(7), has_more: true, epoch: "e" },
      { events: [], next_since_id: formatEventId(9), has_more: false, epoch: "e" },
    ];
    server.set("GET", "/events", () => ({ status: 200, body: pages.shift() }));
    const sink = sinkFrom(5);
    await new EventReader(server.api, sink).catchUp();
    expect(sink.cursorNow()).toBe(formatEventId(9));
    expect(server.calls).toHaveLength(2);
  });

  it("fails, rather than spins, on a page that says has_more without moving the cursor (C29)", async () => {
    const server = new FakeServer();
    server.set("GET", "/events", {
      status: 200,
      body: { events: [], next_since_id: formatEventId(5), has_more: true, epoch: "e" },
    });
    await expect(new EventReader(server.api, sinkFrom(5)).catchUp()).rejects.toBeInstanceOf(ProtocolError);
    expect(server.calls).toHaveLength(1);
  });
});
