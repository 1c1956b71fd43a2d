// The MCP SDK's client is imported on the first connection (server/mcp/sdk.ts), not with the server. When that import
// fails, the connection says so in its last error and tries again after its backoff, like any failed start.
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { McpConnection } from "../../server/mcp/connection.ts";
import { mcpServerSchema } from "../../server/mcp/config.ts";
import { ManualClock } from "../bridge/manual-clock.ts";
import { holds } from "../support/holds.ts";

const sdk = vi.hoisted(() => ({ loads: 0 }));
// vitest reports a factory's error as its own "error when mocking a module", the factory's as its cause.
vi.mock("@modelcontextprotocol/sdk/client/index.js", () => {
  sdk.loads++;
  throw new Error("Cannot find module '@modelcontextprotocol/sdk/client/index.js'");
});

describe("the MCP SDK loaded on first use", () => {
  it("a connection whose SDK cannot be loaded names it in its last error, and loads it again at its next attempt", async () => {
    const clock = new ManualClock();
    const config = mcpServerSchema.parse({ command: "node", args: ["--version"] });
    const connection = new McpConnection("files", config, clock, pino({ level: "silent" }));
    await connection.start();
    expect(connection.status).toBe("restarting");
    expect(connection.lastError).toMatch(/^could not start: the MCP SDK could not be loaded: \S/);
    expect(connection.pid).toBeUndefined();
    expect(sdk.loads).toBe(1);
    clock.advance(1000);
    await holds(() => sdk.loads === 2 && connection.restarts === 2, "the second attempt loads the SDK again", 5000);
    await connection.stop();
    expect(connection.status).toBe("stopped");
  });
});
