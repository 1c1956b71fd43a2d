// Resuming from the device's cache (docs/client.md "Resuming from the device's cache", R1-R5) against a real server
// (SQLite in a temp dir) and bridge on 127.0.0.1: a start with a saved cursor hears exactly the events stored after
// it, once and in order; nothing is saved while the app's cache is not in step; a cursor of another pairing or of a
// replaced store is never used to skip events; a revoked device forgets it.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/connection/client.ts";
import type { CursorStore, SavedCursor } from "../../client/connection/cursor-keeper.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import { isEvent } from "../../client/events/narrow.ts";
import { AdminClient } from "../../client/api/admin.ts";
import { ADMIN_TOKEN } from "../support/server.ts";
import { FAST_RECONNECT, until, untilLive } from "./support/stack.ts";
import { expectExactly } from "./support/heard-exactly.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

/** A cursor store in memory that records every save, as an app's cache would keep it beside its list. */
function memoryCursorStore(initial?: unknown) {
  const saves: SavedCursor[] = [];
  let value: unknown = initial;
  const store: CursorStore = {
    load: async () => value,
    save: async (saved) => void saves.push((value = saved)),
    forget: async () => void (value = undefined),
  };
  return {
    store,
    saves,
    get value() {
      return value;
    },
  };
}

describe("resuming from a saved cursor", () => {
  it("a second run resumes after the first one's saved cursor and hears each event stored meanwhile once, in order (R1, R2)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const kept = memoryCursorStore();
    const first = scope.own(connect(credentials, { ...FAST_RECONNECT, cursorStore: kept.store }));
    expect(await first.resumed()).toBe(false);
    await untilLive(first);
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "before keepCursor");
    await until(() => first.cursor === stack.latestId(), "first caught up");
    // R2: a start that did not resume saves nothing until the app says its cache is in step.
    expect(kept.saves).toEqual([]);
    first.keepCursor();
    await until(() => kept.saves.at(-1)?.event_id === stack.latestId(), "cursor saved");
    await stack.append(sessionId, "heard live");
    await until(() => kept.saves.at(-1)?.event_id === stack.latestId(), "cursor saved after a live event");
    const savedAt = stack.latestId();
    first.close();

    for (const text of ["while closed 1", "while closed 2", "while closed 3"]) await stack.append(sessionId, text);
    const second = scope.own(connect(credentials, { ...FAST_RECONNECT, cursorStore: kept.store }));
    const heard: AnyEvent[] = [];
    second.on("*", (event) => heard.push(event));
    expect(await second.resumed()).toBe(true);
    await untilLive(second);
    await expectExactly(stack, heard, savedAt);
    const contents = heard.filter((event) => isEvent(event, "message_appended")).map((event) => event.message.content);
    expect(contents).toEqual(["while closed 1", "while closed 2", "while closed 3"]);
    // R1: the resumed run keeps saving, so a third run would start after these.
    await until(() => kept.saves.at(-1)?.event_id === stack.latestId(), "resumed run saves");
  });

  it("another pairing's cursor is not used; a replaced store's answers 410: onReset, and nothing saved until keepCursor (R3, R4)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const sessionId = await stack.createSession();
    await stack.append(sessionId, "old");
    const elsewhere = memoryCursorStore({ connection_id: "srv-other/dev-other", event_id: "0".repeat(20), epoch: "e" });
    const other = scope.own(connect(credentials, { ...FAST_RECONNECT, cursorStore: elsewhere.store }));
    const heardOther: AnyEvent[] = [];
    other.on("*", (event) => heardOther.push(event));
    expect(await other.resumed()).toBe(false);
    await untilLive(other);
    expect(heardOther).toEqual([]); // read from the head: the store's past is not replayed from id 0
    other.close();

    const replaced = memoryCursorStore({
      connection_id: other.connectionId,
      event_id: "0".repeat(20),
      epoch: "a-store-that-was-replaced",
    });
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, cursorStore: replaced.store }));
    let resets = 0;
    client.onReset(() => resets++);
    const heard: AnyEvent[] = [];
    client.on("*", (event) => heard.push(event));
    expect(await client.resumed()).toBe(true);
    await untilLive(client);
    expect(resets).toBe(1);
    expect(heard).toEqual([]); // the old store's ids were never served as if they were this one's
    await stack.append(sessionId, "after the reset");
    await until(() => heard.length > 0 && client.cursor === stack.latestId(), "live after the reset");
    expect(replaced.saves).toEqual([]);
    client.keepCursor();
    await until(() => replaced.saves.at(-1)?.event_id === stack.latestId(), "saved after keepCursor");
  });

  it("a revoked device forgets its saved cursor (R5)", async () => {
    const stack = await scope.start();
    const credentials = await stack.pair();
    const kept = memoryCursorStore();
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, cursorStore: kept.store }));
    await untilLive(client);
    client.keepCursor();
    await until(() => kept.value !== undefined, "saved");
    await new AdminClient({ serverUrl: stack.serverUrl, adminToken: ADMIN_TOKEN }).revokeDevice(credentials.device_id);
    await until(() => client.status.get().state === "stopped", "stopped");
    expect(kept.value).toBeUndefined();
  });
});
