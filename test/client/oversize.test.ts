// An event too big for one bridge frame (a message_appended carries the whole session, and an image_data data URL
// may be megabytes): the forwarder pushes a stub {truncated: true}, the client fetches that one event over HTTP
// and delivers the full event in order. Real server and bridge on 127.0.0.1.
import { describe, expect, it } from "vitest";
import type { AnyEvent } from "../../client/wire/events.ts";
import { MAX_FRAME_BYTES } from "../../client/wire/frames.ts";
import { liveClient, until } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

describe("an event over the bridge's frame limit", () => {
  it("reaches the client whole and in order, and the next event is not stuck behind it (C17)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const { client, seen } = await liveClient(scope, credentials);
    const start = client.cursor!;
    const sessionId = await stack.createSession();
    // message_appended repeats the content three times (content, message, session): more than a whole frame.
    const big = "x".repeat(Math.ceil(MAX_FRAME_BYTES / 3) + 1024);
    await stack.append(sessionId, big);
    await stack.append(sessionId, "small");
    const expected = (await stack.storeEvents()).filter((event) => event.event_id > start);
    expect(expected.some((event) => JSON.stringify(event).length > MAX_FRAME_BYTES)).toBe(true);
    await until(() => seen.length >= expected.length, "every event, the one after the big one too");
    expect(client.status.get().state).toBe("live");
    expect(seen.map((event) => event.event_id)).toEqual(expected.map((event) => event.event_id));
    expect(seen).toEqual(expected);
    expect(seen.some((event) => "truncated" in event)).toBe(false);
    const appended = seen.filter((event) => event.type === "message_appended") as Array<AnyEvent & { content: string }>;
    expect(appended.map((event) => event.content)).toEqual([big, "small"]);
  });
});
