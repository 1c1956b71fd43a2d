// An approval answered from away: a device paired through a real bridge answers with the API relay (`api` push of
// POST .../respond), as the app does from a phone that reaches only the bridge. The device may not read GET /mcp
// (admin only), an unknown session answers 404, and a second answer 409 with the record.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { cleanups, runCleanups, testBridge } from "../bridge/helpers.ts";
import { appChannel, linkToBridge, pairDevice, relay, type RelayStack } from "../relay/stack.ts";
import { createSession, eventsOf, send, waitForEvent } from "../runner/helpers.ts";
import { approvalsWaiting, filesystemServer, scriptCalls, startMcpRuntime, toolResults } from "./helpers.ts";

afterEach(runCleanups);

async function mcpRelayStack(): Promise<RelayStack & { dir: string }> {
  const backend = await startScriptedBackend();
  cleanups.push(() => backend.close());
  const bridge = await testBridge();
  const fs = filesystemServer();
  const server = await startMcpRuntime(backend, { fs: fs.config }, ["mcp__fs__*"], {
    server: { server_id: "srv1", public_url: "http://127.0.0.1:1" },
  });
  cleanups.push(() => server.close());
  const { serverUrl, forwarder } = await linkToBridge(server, bridge);
  return { backend, server, serverUrl, bridge, forwarder, stopForwarder: () => forwarder.stop(), dir: fs.dir };
}

describe("approval through the bridge relay", () => {
  it("a paired device approves with a relayed respond; the write runs", async () => {
    const stack = await mcpRelayStack();
    const credentials = await pairDevice(stack, stack.serverUrl);
    const { channel } = await appChannel(stack, credentials.device_token);
    const target = join(stack.dir, "from-phone.txt");
    scriptCalls(stack.backend, [
      { id: "w1", name: "mcp__fs__write_file", args: { path: target, content: "approved away" } },
    ]);
    const server = stack.server;
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "write it" });
    // The device learns of the wait from the tool_approval event (sealed for it on the bridge; read here in the store).
    const [notificationId] = await approvalsWaiting(server, rid);
    const event = eventsOf(server, rid).find((e) => e.type === "tool_approval")!;
    expect(event).toMatchObject({
      session_id: sid,
      request_id: rid,
      tool_call_id: "w1",
      tool_name: "mcp__fs__write_file",
      notification_id: notificationId,
      state: "waiting",
    });
    expect(existsSync(target)).toBe(false);

    const admin = await relay(channel, "GET", "/mcp");
    expect(admin.response.status).toBe(403);
    const unknown = await relay(
      channel,
      "POST",
      `/sessions/nope/notifications/${String(event.notification_id)}/respond`,
      { response: "approve" },
    );
    expect(unknown.response.status).toBe(404);

    const answered = await relay(
      channel,
      "POST",
      `/sessions/${sid}/notifications/${String(event.notification_id)}/respond`,
      { response: "approve" },
    );
    expect(answered.status).toBe("ok");
    expect(answered.response.status).toBe(200);
    expect(answered.response.body).toMatchObject({
      status: "responded",
      response: { response: "approve", by: `device:${credentials.device_id}` },
    });
    const events = await waitForEvent(server, rid);
    expect(readFileSync(target, "utf8")).toBe("approved away");
    expect(toolResults(events)[0]!.content).toContain("Successfully wrote");

    // A second device answering the same record (the phone and the desktop both showed it): 409 with the record.
    const again = await relay(
      channel,
      "POST",
      `/sessions/${sid}/notifications/${String(event.notification_id)}/respond`,
      { response: "deny" },
    );
    expect(again.response.status).toBe(409);
    expect(again.response.body).toMatchObject({ id: event.notification_id, status: "resolved" });
  });
});
