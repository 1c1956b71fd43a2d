// A Streamable HTTP MCP server built with the SDK in the test: its tools ask for approval by default even when
// annotated read-only (an HTTP server's hints are not trusted), a per-tool require_approval of "never" runs at once,
// the configured headers reach it, and an answer over max_message_bytes fails the call instead of being read whole.
import { holds } from "../support/holds.ts";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { createSession, send, waitForEvent, type RunnerServer } from "../runner/helpers.ts";
import { approvalsWaiting, respond, scriptCalls, startMcpRuntime, toolResults } from "./helpers.ts";

let backend: ScriptedBackend;
let server: RunnerServer | undefined;
let http: Server;
let url: string;
/** The test server's sessions: clearing it makes the server forget every client, as a restart would. */
let sessions: Map<string, StreamableHTTPServerTransport>;

/** One McpServer per client session, as the SDK's stateful examples do. */
function mcpServer(): McpServer {
  const mcp = new McpServer({ name: "http-test", version: "1.0.0" });
  mcp.registerTool(
    "lookup",
    {
      description: "Looks a word up",
      inputSchema: { q: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ q }, extra) => ({
      content: [{ type: "text", text: `${q}: found (auth ${String(extra.requestInfo?.headers["authorization"])})` }],
    }),
  );
  mcp.registerTool(
    "huge",
    { description: "2 MB of text", annotations: { readOnlyHint: true, openWorldHint: false } },
    async () => ({
      content: [{ type: "text", text: "z".repeat(2 * 1024 * 1024) }],
    }),
  );
  return mcp;
}

beforeEach(async () => {
  backend = await startScriptedBackend();
  const transports = (sessions = new Map<string, StreamableHTTPServerTransport>());
  http = createServer(async (req, res) => {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sessionId = req.headers["mcp-session-id"] as string | undefined;
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => void transports.set(id, created),
      });
      transport = created;
      await mcpServer().connect(transport);
    }
    if (!transport) return void res.writeHead(sessionId ? 404 : 400).end();
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await backend.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

describe("Streamable HTTP server", () => {
  it("asks before every call by default, even for a tool annotated read-only; the configured headers reach it", async () => {
    server = await startMcpRuntime(backend, { web: { url, headers: { authorization: "Bearer mcp-secret" } } }, [
      "mcp__web__lookup",
    ]);
    expect(server.runtime.ctx.mcp.report()[0]).toMatchObject({ transport: "http", status: "ready", tool_count: 2 });
    scriptCalls(backend, [{ id: "c1", name: "mcp__web__lookup", args: { q: "otter" } }]);
    const sid = await createSession(server);
    const rid = await send(server, sid, { content: "look it up" });
    const [nid] = await approvalsWaiting(server, rid);
    expect((await respond(server, sid, nid!, { response: "approve" })).status).toBe(200);
    const [result] = toolResults(await waitForEvent(server, rid));
    expect(result!.content).toBe("otter: found (auth Bearer mcp-secret)");
  });

  it("require_approval per tool: never runs it at once", async () => {
    server = await startMcpRuntime(backend, { web: { url, require_approval: { lookup: "never" } } }, ["mcp__web__*"]);
    scriptCalls(backend, [{ id: "c1", name: "mcp__web__lookup", args: { q: "otter" } }]);
    const sid = await createSession(server);
    const events = await waitForEvent(server, await send(server, sid, { content: "x" }));
    expect(events.some((e) => e.type === "tool_approval")).toBe(false);
    expect(toolResults(events)[0]!.content).toMatch(/^otter: found/);
    const tools = server.runtime.ctx.mcp.report()[0]!.tools;
    expect(tools.find((t) => t.tool === "lookup")).toMatchObject({ approval_mode: "never", requires_approval: false });
    expect(tools.find((t) => t.tool === "huge")).toMatchObject({ approval_mode: "always", requires_approval: true });
  });

  it("an answer over max_message_bytes fails the call instead of being read whole", async () => {
    server = await startMcpRuntime(
      backend,
      { web: { url, require_approval: "never", max_message_bytes: 1024 * 1024 } },
      ["mcp__web__*"],
    );
    scriptCalls(backend, [{ id: "c1", name: "mcp__web__huge", args: {} }]);
    const sid = await createSession(server);
    const [result] = toolResults(await waitForEvent(server, await send(server, sid, { content: "x" })));
    expect(result!.metadata.error).toBe(true);
    expect(result!.content).toMatch(/larger than 1048576 bytes \(max_message_bytes\)/);
  });

  it("a server that forgot the session (restarted): that call fails, the service connects again, the next works", async () => {
    server = await startMcpRuntime(backend, { web: { url, require_approval: "never" } }, ["mcp__web__*"]);
    sessions.clear();
    scriptCalls(backend, [{ id: "c1", name: "mcp__web__lookup", args: { q: "a" } }]);
    const sid = await createSession(server);
    const [lost] = toolResults(await waitForEvent(server, await send(server, sid, { content: "x" })));
    expect(lost!.metadata.error).toBe(true);
    expect(lost!.content).toMatch(/MCP server "web": Streamable HTTP error/);
    await holds(
      () =>
        server!.runtime.ctx.mcp.report()[0]!.status === "ready" && server!.runtime.ctx.mcp.report()[0]!.restarts > 0,
      "the MCP server restarted and is ready",
      30_000,
    );
    scriptCalls(backend, [{ id: "c2", name: "mcp__web__lookup", args: { q: "b" } }]);
    expect(toolResults(await waitForEvent(server, await send(server, sid, { content: "again" })))[0]!.content).toMatch(
      /^b: found/,
    );
  });
});
