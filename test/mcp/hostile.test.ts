// Hostile and broken stdio servers (test/mcp/fixtures/hostile.mjs): a 100 MB answer, lines that are not JSON-RPC,
// a server that never answers, one that exits mid-call, one that floods notifications. Each call ends with an error
// result (or its answer, after the flood), the service's memory grows by less than 50 MB meanwhile, and the service
// still answers. Latency under each case is measured by scripts/bench/mcp.ts (no timed assertions here).
import { holds } from "../support/holds.ts";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { createSession, send, waitForEvent, waitUntil, type RunnerServer } from "../runner/helpers.ts";
import { FIXTURES, scriptCalls, startMcpRuntime, toolResults } from "./helpers.ts";

let backend: ScriptedBackend;
let server: RunnerServer | undefined;

beforeEach(async () => {
  backend = await startScriptedBackend();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await backend.close();
});

const hostile = (mode: string, ...args: string[]) => ({
  command: process.execPath,
  args: [join(FIXTURES, "hostile.mjs"), mode, ...args],
});

/** Runs one call of mcp__h__act and samples the process's RSS meanwhile; answers the result and the growth. */
async function callWhileSampling(mode: string, args: string[] = [], during?: (rid: string) => Promise<void>) {
  server = await startMcpRuntime(backend, { h: hostile(mode, ...args) }, ["mcp__h__*"]);
  scriptCalls(backend, [{ id: "c1", name: "mcp__h__act", args: {} }]);
  const sid = await createSession(server);
  globalThis.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const rid = await send(server, sid, { content: "go" });
    await during?.(rid);
    const events = await waitForEvent(server, rid);
    const health = await server.request({ method: "GET", url: "/health", token: null });
    expect(health.status).toBe(200);
    return { result: toolResults(events)[0]!, growthMb: (peak - baseline) / (1024 * 1024) };
  } finally {
    clearInterval(sampler);
  }
}

describe("hostile MCP servers", () => {
  it("a 100 MB answer is dropped unread: the call fails at once, memory stays bounded", async () => {
    const { result, growthMb } = await callWhileSampling("huge", ["100"]);
    expect(result.metadata.error).toBe(true);
    expect(result.content).toMatch(/larger than 4194304 bytes \(max_message_bytes\), so it was dropped unread/);
    expect(growthMb).toBeLessThan(50);
    // The server is still connected; the message was counted as dropped.
    await waitDropped(1);
    expect(server!.runtime.ctx.mcp.report()[0]).toMatchObject({ status: "ready", dropped_messages: 1 });
  });

  it("lines that are not JSON-RPC are dropped; the one carrying the call's id fails the call", async () => {
    const { result, growthMb } = await callWhileSampling("invalid");
    expect(result.metadata.error).toBe(true);
    expect(result.content).toMatch(/not valid JSON-RPC/);
    expect(growthMb).toBeLessThan(50);
    await waitDropped(3);
  });

  it("a server that never answers: the call ends at timeout_seconds", async () => {
    const { result } = await callWhileSampling("silent", [], async (rid) => {
      await waitUntil(server!, rid, (events) => events.some((e) => e.type === "tool_calls"));
      await holds(() => server!.clock.fireHeld(60_000) > 0, "the call's 60 s timeout was held", 30_000);
    });
    expect(result.content).toMatch(/no answer within 60 s/);
  });

  it("a server that exits mid-call: the call fails, its stderr is the reported error, it is restarted", async () => {
    const { result } = await callWhileSampling("exit");
    expect(result.metadata.error).toBe(true);
    expect(result.content).toMatch(/Connection closed/);
    const report = server!.runtime.ctx.mcp.report()[0]!;
    expect(report.restarts).toBeGreaterThanOrEqual(1);
    expect(report.last_error ?? "").toMatch(/boom: giving up mid-call/);
  });

  it("a flood of notifications (shortened to 3 s here; 60 s in the benchmark) is paced; the call then gets its answer", async () => {
    const { result, growthMb } = await callWhileSampling("flood", ["3"]);
    expect(result.content).toMatch(/^flooded \d+$/);
    expect(growthMb).toBeLessThan(50);
  });
});

async function waitDropped(count: number): Promise<void> {
  await holds(
    () => server!.runtime.ctx.mcp.report()[0]!.dropped_messages >= count,
    `${count} messages dropped`,
    30_000,
  );
}
