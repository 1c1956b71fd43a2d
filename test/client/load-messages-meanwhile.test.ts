// loadMessages while the chat's events keep coming (docs/client.md C175). After the snapshot, the events delivered
// beyond its cursor are read over HTTP; an event delivered over the bridge while that read is on its way is newer
// than the read's page, so it must reach the caller (with the page, or through the listener). It used to reach no
// one: the listener was registered only after the read, and the event was already delivered. The companion app lost
// the reply after a tool's result that way (docs/app.md A5). Real server and bridge on 127.0.0.1; the test holds the
// server's answers in a fetch of its own until the event it appends has been delivered, so the order is fixed.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import { isEvent } from "../../client/events/narrow.ts";
import type { FetchLike } from "../../client/transport/http.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { FAST_RECONNECT, until, untilLive } from "./support/stack.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

/** A fetch that, for the first request whose URL matches, holds the server's answer until `release`. */
function heldAnswer(matches: (url: string) => boolean) {
  let reached!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let used = false;
  const fetch: FetchLike = async (input, init) => {
    const answer = await globalThis.fetch(input, init);
    if (used || !matches(input)) return answer;
    used = true;
    reached();
    await released;
    return answer;
  };
  return { fetch, arrived, release };
}

const contentOf = (event: AnyEvent) => (isEvent(event, "message_appended") ? event.message.content : undefined);

describe("loadMessages while events keep coming", () => {
  it("an event delivered while the events after the snapshot are read reaches the caller, once", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "in the snapshot");
    const snapshot = heldAnswer((url) => url.includes(`/sessions/${sessionId}/messages`));
    const read = heldAnswer((url) => url.includes("/events?") && url.includes(`session_id=${sessionId}`));
    const fetch: FetchLike = (input, init) => (input.includes("/events?") ? read.fetch : snapshot.fetch)(input, init);
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, route: "direct", fetch }));
    await untilLive(client);
    const delivered: AnyEvent[] = [];
    client.on("*", (event) => delivered.push(event));
    const deliveredText = (text: string) => () => delivered.some((event) => contentOf(event) === text);

    const heard: AnyEvent[] = [];
    const loading = client.loadMessages(sessionId, (event) => heard.push(event));
    // Stored after the snapshot was taken and delivered before it is answered: read over HTTP after it.
    await snapshot.arrived;
    await stack.append(sessionId, "after the snapshot");
    await until(deliveredText("after the snapshot"), "the event after the snapshot delivered");
    snapshot.release();
    // Stored after that read was answered, and delivered before the answer is handed over.
    await read.arrived;
    await stack.append(sessionId, "while the read is on its way");
    await until(deliveredText("while the read is on its way"), "the event during the read delivered");
    read.release();
    const loaded = await loading;
    await stack.append(sessionId, "after the load");
    await until(() => heard.some((event) => contentOf(event) === "after the load"), "the listener heard the next");

    const reached = [
      ...loaded.messages.map((message) => message.content),
      ...[...loaded.events, ...heard].map(contentOf).filter((text) => text !== undefined),
    ];
    expect(reached).toEqual([
      "in the snapshot",
      "after the snapshot",
      "while the read is on its way",
      "after the load",
    ]);
  });
});
