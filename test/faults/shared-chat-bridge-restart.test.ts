// A bridge killed (SIGKILL) and started again while a shared chat is being written to (docs/testing.md "Faults"):
// neither person loses an event. The owner and the person it is shared with each have an end-to-end device on the
// client library; events of the chat are written before the kill, while the bridge is down and after its return, and
// each device ends with exactly what that person's own `GET /events` holds since it connected, once each and in
// order. A third person, who was never given the chat, hears none of it.
import { afterEach, describe, expect, it } from "vitest";
import { connect, type ChatClient } from "../../client/connection/client.ts";
import type { AnyEvent } from "../../client/wire/events.ts";
import type { Credentials } from "../../client/connection/credentials.ts";
import { BRIDGE_START_MS, ProcessBridgeStack } from "../client/support/bridge-process.ts";
import { FAST_RECONNECT, until, untilLive } from "../client/support/stack.ts";

/** The process-bridge stack, pairing devices for a chosen person. */
class PeopleStack extends ProcessBridgeStack {
  pairFor: string | undefined;
  override async pairingCode(): Promise<string> {
    const payload = this.pairFor ? { person_id: this.pairFor } : {};
    const created = await this.server.request({ method: "POST", url: "/pairing", payload });
    return (created.json as { code: string }).code;
  }
}

let stack: PeopleStack | undefined;
const clients: ChatClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await stack?.close();
  stack = undefined;
});

async function personWithDevice(s: PeopleStack, name: string): Promise<{ id: string; device: Credentials }> {
  const added = await s.server.request({ method: "POST", url: "/people", payload: { name } });
  const id = (added.json as { person: { id: string } }).person.id;
  s.pairFor = id;
  const device = await s.pair(`${name} phone`);
  s.pairFor = undefined;
  return { id, device };
}

/** A client on the device, recording every event it hears. */
async function listening(device: Credentials): Promise<{ client: ChatClient; heard: AnyEvent[]; start: string }> {
  const client = connect(device, { ...FAST_RECONNECT, pollWaitMs: 1000 });
  clients.push(client);
  const heard: AnyEvent[] = [];
  client.on("*", (event) => heard.push(event));
  await untilLive(client);
  return { client, heard, start: client.cursor! };
}

/** What the person's own event feed holds after `since`. */
async function feedOf(s: PeopleStack, token: string, since: string): Promise<string[]> {
  const ids: string[] = [];
  for (let cursor = since; ;) {
    const page = await s.server.request({ method: "GET", url: `/events?since_id=${cursor}&limit=1000`, token });
    const body = page.json as { events: AnyEvent[]; next_since_id: string; has_more?: boolean };
    ids.push(...body.events.map((event) => event.event_id));
    if (!body.has_more) return ids;
    cursor = body.next_since_id;
  }
}

describe("a bridge restart while a shared chat is written to", () => {
  it("loses nothing for the owner or the person it is shared with", { timeout: 4 * BRIDGE_START_MS }, async () => {
    const s = new PeopleStack();
    stack = s;
    await s.startBridge();
    await s.startServer();
    const owner = await s.pair("owner phone");
    const ana = await personWithDevice(s, "Ana");
    const stranger = await personWithDevice(s, "Kid");
    const chat = await s.createSession();
    const shared = await s.server.request({
      method: "POST",
      url: `/sessions/${chat}/shares`,
      payload: { person_id: ana.id, access: "write" },
    });
    expect(shared.status).toBe(200);

    const listeners = [await listening(owner), await listening(ana.device), await listening(stranger.device)];
    const [ownerApp, anaApp, strangerApp] = listeners as [
      Awaited<ReturnType<typeof listening>>,
      Awaited<ReturnType<typeof listening>>,
      Awaited<ReturnType<typeof listening>>,
    ];
    await s.append(chat, "before the kill");
    await until(() => anaApp.heard.some((event) => event.session_id === chat), "Ana hears the shared chat");

    await s.stopBridge();
    for (let i = 0; i < 5; i++) await s.append(chat, `while the bridge is down ${i}`);
    await s.startBridge();
    for (let i = 0; i < 5; i++) await s.append(chat, `after the restart ${i}`);

    for (const [app, token] of [
      [ownerApp, owner.device_token],
      [anaApp, ana.device.device_token],
    ] as const) {
      const expected = await feedOf(s, token, app.start);
      await until(() => app.heard.length >= expected.length, `all ${expected.length} events`, BRIDGE_START_MS);
      expect(app.heard.map((event) => event.event_id)).toEqual(expected);
      expect(app.heard.filter((event) => event.type === "message_appended" && event.session_id === chat)).toHaveLength(
        11,
      );
    }
    expect(strangerApp.heard.filter((event) => event.session_id === chat)).toEqual([]);
  });
});
