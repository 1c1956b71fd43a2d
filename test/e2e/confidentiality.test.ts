// The bridge relays ciphertext only (docs/security.md S1-S4): with encrypting devices paired, a marker published in
// an event and one sent in a relayed call appear nowhere the bridge could read them (every frame it received or
// sent, its replay buffer, its data dir, its logs), while the device's listeners get the event with the marker.
import { describe, expect, it } from "vitest";
import { connect } from "../../client/index.ts";
import { FAST_RECONNECT, liveClient, markerHeard, Stack, untilLive } from "../client/support/stack.ts";
import { BridgeCapture } from "./capture.ts";
import { useStack } from "../support/use-stack.ts";

const scope = useStack();

function leaks(capture: BridgeCapture, s: Stack, marker: string): string[] {
  return capture
    .everything(s.bridge!, s.bridgeDir, s.bridgeLog)
    .filter(({ text }) => text.includes(marker))
    .map(({ where }) => where);
}

describe("an encrypting device", () => {
  it("S1: gets events with the marker while the bridge holds no plaintext of it, in frames, buffer, files or logs", async () => {
    const capture = BridgeCapture.install();
    scope.onClose(() => capture.uninstall());
    const stack = await scope.start();
    const credentials = await stack.pair();
    expect(credentials.e2e).toBeDefined();
    const { seen: heard } = await liveClient(scope, credentials);
    const marker = await markerHeard(stack, heard, "EVENT");
    // The event's id travelled in clear (order and replay work on it); its content did not.
    expect(capture.frames.some((frame) => frame.includes("sealed_event"))).toBe(true);
    expect(leaks(capture, stack, marker)).toEqual([]);
    expect(stack.bridge!.core.registry.get("srv1")!.buffer.size).toBeGreaterThan(0);
  });

  it("S2: relays calls sealed both ways: the bridge sees neither the request's marker nor the answer's", async () => {
    const capture = BridgeCapture.install();
    scope.onClose(() => capture.uninstall());
    const stack = await scope.start();
    const credentials = await stack.pair();
    const client = scope.own(connect(credentials, { ...FAST_RECONNECT, route: "relay" }));
    await untilLive(client);
    const session = await client.createSession();
    const marker = `MARKER-RELAY-${Math.random().toString(36).slice(2)}`;
    const appended = await client.appendMessage(session.id, { role: "user", content: marker });
    expect(appended.message.content).toBe(marker);
    const read = await client.getSession(session.id);
    expect(JSON.stringify(read)).toContain(marker);
    expect(capture.frames.some((frame) => frame.includes("/e2e/relay"))).toBe(true);
    expect(leaks(capture, stack, marker)).toEqual([]);
  });
});
