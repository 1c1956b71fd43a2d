// MCP tools benchmark (issue 23). Prints one JSON line:
//  - added time per call: the official everything server's `echo` over stdio, called N times in a row through
//    the service's path (the exposed tool's run: policy, the bounded transport, the result mapping) and, in the same
//    run and interleaved round by round, through the SDK's own Client and StdioClientTransport directly (the
//    baseline). added_ms_p50 = p50(service) - p50(SDK). Floor: at most 1 ms.
//  - hostile servers (test/mcp/fixtures/hostile.mjs): for a 100 MB answer, lines that are not JSON-RPC, a server
//    that never answers (timeout_seconds 5), one that exits mid-call, and a flood of notifications for 60 s: the
//    growth of the service's RSS while the call runs and the p99 of GET /health (probed every 5 ms over HTTP on
//    127.0.0.1) meanwhile, next to the idle /health p99 measured first. Floors: growth < 50 MB, p99 < 50 ms.
// Usage: node --expose-gc --import tsx scripts/bench/mcp.ts [--calls 300] [--rounds 5] [--flood-seconds 60]
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parseConfig } from "../../server/config/load.ts";
import type { ToolRunContext } from "../../server/plugins/tools.ts";
import { createRuntime, type Runtime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { median, percentile } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "calls": { type: "string", default: "300" },
    "rounds": { type: "string", default: "5" },
    "flood-seconds": { type: "string", default: "60" },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const FLOOD_SECONDS = values["flood-seconds"];

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);
const HOSTILE = fileURLToPath(new URL("../../test/mcp/fixtures/hostile.mjs", import.meta.url));
const hostile = (mode: string, ...args: string[]) => ({
  command: process.execPath,
  args: [HOSTILE, mode, ...args],
  require_approval: "never",
});

function startRuntime(): Runtime {
  const config = parseConfig({
    mcp_servers: {
      every: { command: process.execPath, args: [EVERYTHING, "stdio"] },
      huge: hostile("huge", "100"),
      invalid: hostile("invalid"),
      silent: { ...hostile("silent"), timeout_seconds: 5 },
      exit: hostile("exit"),
      // Its answer comes after the flood: the call may take longer than the flood itself.
      flood: { ...hostile("flood", FLOOD_SECONDS), timeout_seconds: Number(FLOOD_SECONDS) + 60 },
    },
    agents: {
      default: {
        provider_id: "default",
        tools: [
          "mcp__every__echo",
          "mcp__huge__*",
          "mcp__invalid__*",
          "mcp__silent__*",
          "mcp__exit__*",
          "mcp__flood__*",
        ],
      },
    },
  });
  return createRuntime({ config, dataDir: tempDir("bench-mcp-"), adminToken: "bench-token" });
}

function toolOf(runtime: Runtime, name: string) {
  const tool = runtime.ctx.mcp.toolsFor([name]).find((t) => t.name === name);
  if (!tool) throw new Error(`${name} is not exposed: ${JSON.stringify(runtime.ctx.mcp.report())}`);
  return tool;
}

const context = (index: number): ToolRunContext => ({
  session_id: "bench",
  request_id: "bench",
  tool_call_id: `c${index}`,
  call_index: index,
  signal: new AbortController().signal,
  emit: () => undefined,
  notify: async () => null,
});

async function timeCalls(call: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

async function perCallOverhead(runtime: Runtime) {
  const sdk = new Client({ name: "bench", version: "1" });
  await sdk.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
  );
  const echo = toolOf(runtime, "mcp__every__echo");
  const ours: number[] = [];
  const base: number[] = [];
  // Warm both paths (JIT, the servers' first calls).
  for (let i = 0; i < 50; i++) {
    await sdk.callTool({ name: "echo", arguments: { message: "hi" } });
    await echo.run({ message: "hi" }, context(i));
  }
  for (let round = 0; round < ROUNDS; round++) {
    base.push(...(await timeCalls(() => sdk.callTool({ name: "echo", arguments: { message: "hi" } }))));
    ours.push(...(await timeCalls((i) => Promise.resolve(echo.run({ message: "hi" }, context(i))))));
  }
  await sdk.close();
  return {
    calls: ours.length,
    sdk_call_ms_p50: round3(median(base)),
    service_call_ms_p50: round3(median(ours)),
    added_ms_p50: round3(median(ours) - median(base)),
  };
}

/** GET /health every 5 ms until stopped; answers the latencies. */
function probeHealth(url: string): { stop: () => Promise<number[]> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      samples.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** The case ends when the call has ended and, for servers whose output is dropped, when all of it was read. */
const DROPPED_BY_CASE: Record<string, number> = { huge: 1, invalid: 3 };

async function allRead(runtime: Runtime, server: string): Promise<void> {
  const expected = DROPPED_BY_CASE[server] ?? 0;
  const dropped = () => runtime.ctx.mcp.report().find((s) => s.name === server)!.dropped_messages;
  while (dropped() < expected) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function hostileCase(runtime: Runtime, url: string, server: string) {
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const probe = probeHealth(url);
  const started = performance.now();
  let outcome: string;
  try {
    const result = (await toolOf(runtime, `mcp__${server}__act`).run({}, context(0))) as { content: string };
    outcome = result.content.slice(0, 80);
  } catch (error) {
    outcome = `error: ${(error as Error).message.slice(0, 120)}`;
  }
  await allRead(runtime, server);
  const ms = performance.now() - started;
  const health = await probe.stop();
  clearInterval(sampler);
  return {
    seconds: round3(ms / 1000),
    rss_growth_mb: round3((peak - baseline) / 1024 / 1024),
    health_p99_ms: round3(percentile(health, 99)),
    probes: health.length,
    outcome,
  };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

const runtime = startRuntime();
try {
  const url = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const overhead = await perCallOverhead(runtime);
  const idle = probeHealth(url);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const idleSamples = await idle.stop();
  const cases: Record<string, unknown> = {};
  for (const server of ["huge", "invalid", "silent", "exit", "flood"])
    cases[server] = await hostileCase(runtime, url, server);
  process.stdout.write(
    JSON.stringify({
      bench: "mcp",
      ...overhead,
      floor_added_ms_p50: 1,
      health_idle_p99_ms: round3(percentile(idleSamples, 99)),
      flood_seconds: Number(FLOOD_SECONDS),
      hostile: cases,
    }) + "\n",
  );
} finally {
  await runtime.close();
}
