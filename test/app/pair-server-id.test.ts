// The app's pairing join names its server (docs/app.md "Choices", docs/bridge.md "The pairing race"): against a real
// bridge whose server has not linked yet, a code the bridge has not heard of is `server_unavailable` (retryable)
// when the join names the server, and `invalid_code` when it does not. The library's `serverId` option is what the
// app passes from /app-config.json.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pair, PairingError, type WebSocketConstructor } from "../../client/index.ts";
import { NodeWebSocket, Stack } from "../client/support/stack.ts";

vi.setConfig({ testTimeout: 30_000, hookTimeout: 30_000 });
let stack: Stack;

beforeAll(async () => {
  stack = new Stack();
  await stack.startBridge();
});

afterAll(async () => {
  await stack?.stopBridge();
});

async function reasonOf(options: { serverId?: string }): Promise<string> {
  const attempt = pair({
    bridgeUrl: stack.bridgeUrl,
    code: "ABCDE-FGHJK",
    deviceName: "early phone",
    WebSocket: NodeWebSocket as WebSocketConstructor,
    retryUnavailableForMs: 0,
    ...options,
  });
  const error = await attempt.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  return error instanceof PairingError ? error.reason : String(error);
}

describe("pairing before the server's first link", () => {
  it("names the server in the join: server_unavailable, not invalid_code (P6)", async () => {
    expect(await reasonOf({ serverId: "srv1" })).toBe("server_unavailable");
    expect(await reasonOf({})).toBe("invalid_code");
  });
});
