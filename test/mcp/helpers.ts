// Shared rig of the MCP suites: the official servers from npm (filesystem on a temp dir, everything) started over
// stdio by a real runtime, the scripted backend making tool calls, and readers of what a request published.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { AnyEvent, NotificationRecord } from "../../client/wire/index.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { dialectStream, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { startRunnerServer, waitUntil, type RunnerServer } from "../runner/helpers.ts";
import { tempDir } from "../support/server.ts";

const require = createRequire(import.meta.url);
export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
export const FILESYSTEM_SERVER = join(
  dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")),
  "dist/index.js",
);
export const EVERYTHING_SERVER = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

/** A stdio entry for the filesystem server allowed to use `dir` (a fresh temp dir by default). */
export function filesystemServer(dir = tempDir("mcp-fs-"), extra: Record<string, unknown> = {}) {
  mkdirSync(dir, { recursive: true });
  return { dir, config: { command: process.execPath, args: [FILESYSTEM_SERVER, dir], ...extra } };
}

export function everythingServer(extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"], ...extra };
}

/** A hostile or scripted server from test/mcp/fixtures, run by node (with tsx for .ts). */
export function fixtureServer(file: string, args: string[] = [], extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: ["--import", "tsx", join(FIXTURES, file), ...args], ...extra };
}

/** A runtime whose default agent reaches `tools` (patterns), with these MCP servers. */
export async function startMcpRuntime(
  backend: ScriptedBackend,
  servers: Record<string, unknown>,
  tools: string[],
  config: ConfigInput = {},
  dataDir?: string,
): Promise<RunnerServer> {
  return startRunnerServer(
    backend,
    { mcp_servers: servers as never, agents: { default: { provider_id: "default", tools } }, ...config },
    {},
    dataDir,
  );
}

/** The model asks for one or more tool calls, then (next completion) answers `final`. */
export function scriptCalls(
  backend: ScriptedBackend,
  calls: Array<{ id: string; name: string; args: unknown }>,
  final = "done",
): void {
  backend.script(
    dialectStream("openai", {
      tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.stringify(c.args) })),
    }),
    dialectStream("openai", { content: final }),
  );
}

export type ToolMessage = { role: "tool"; content: string; metadata: Record<string, unknown> };

export function toolResults(events: AnyEvent[]): ToolMessage[] {
  return events.filter((e) => e.type === "tool_results").flatMap((e) => e.messages as ToolMessage[]);
}

/** Resolves once the request published a tool_approval `waiting` for each of `count` calls; answers their ids. */
export async function approvalsWaiting(server: RunnerServer, requestId: string, count = 1): Promise<string[]> {
  const events = await waitUntil(
    server,
    requestId,
    (all) => all.filter((e) => e.type === "tool_approval" && e.state === "waiting").length >= count,
  );
  return events
    .filter((e) => e.type === "tool_approval" && e.state === "waiting")
    .map((e) => e.notification_id as string);
}

export async function sessionRecords(server: RunnerServer, sessionId: string): Promise<NotificationRecord[]> {
  const res = await server.request({
    method: "GET",
    url: `/sessions/${sessionId}/notifications?include_terminal=true`,
  });
  expect(res.status).toBe(200);
  return res.json as NotificationRecord[];
}

export async function respond(
  server: RunnerServer,
  sessionId: string,
  notificationId: string,
  body: Record<string, unknown>,
  token?: string,
) {
  return server.request({
    method: "POST",
    url: `/sessions/${sessionId}/notifications/${notificationId}/respond`,
    payload: body,
    ...(token ? { token } : {}),
  });
}

/** Whether a process with this pid still runs (a zombie counts as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const { readFileSync } = require("node:fs") as typeof import("node:fs");
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
