// Request runner benchmark (issue 3). N sessions at once, each streaming a C-chunk reply from the scripted
// backend through the real runner (HTTP send → provider → events in SQLite). Prints one JSON line of medians
// over several rounds:
//  - events_per_s: events committed per second of wall time while the runs stream;
//  - p50/p99 delay from a chunk's arrival at the adapter (the provider yields its delta) to its `partial`
//    being readable from the store (the commit that makes it visible, from ctx.events.commits);
//  - baseline: the same streams read by the provider alone, nothing published (deltas per second), same run;
//  - partials_per_reply: how many `partial` events a reply became (chunks that arrive together coalesce).
// Floor (issue 3): p99 under 5 ms at 50 sessions × 500 chunks.
// The scripted backend writes a stream's parts back to back, and the adapter reads what one socket read holds
// as one coalesced delta; so that every chunk really arrives on its own, as from a model, the scripted
// backend's SSE bytes (its chunk() and encodeStream()) are played here one chunk per --interval-ms by a paced
// server on 127.0.0.1.
// Usage: node --import tsx scripts/bench/runner.ts [--sessions 50] [--chunks 500] [--rounds 5] [--interval-ms 1]
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { chunk, encodeStream } from "../scripted-backend/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import { systemClock } from "../../server/clock.ts";
import {
  createProvider,
  PacingRegistry,
  providerSettingsSchema,
  type Provider,
  type ProviderDelta,
} from "../../server/provider/index.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { median, percentile } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "sessions": { type: "string", default: "50" },
    "chunks": { type: "string", default: "500" },
    "rounds": { type: "string", default: "5" },
    "interval-ms": { type: "string", default: "1" },
  },
});
const SESSIONS = Number(values.sessions);
const CHUNKS = Number(values.chunks);
const ROUNDS = Number(values.rounds);
const INTERVAL_MS = Number(values["interval-ms"]);
const TOKEN = "bench-token";

/** One SSE event per chunk, as the scripted backend encodes them; the last one also carries [DONE]. */
const EVENTS = Array.from({ length: CHUNKS }, (_, i) =>
  encodeStream([{ data: chunk({ content: `tok${i} ` }) }], { done: i === CHUNKS - 1 }),
);

interface Backend {
  url: string;
  close(): Promise<void>;
}

async function startPacedBackend(): Promise<Backend> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const event of EVENTS) {
        if (res.destroyed) return;
        res.write(event);
        await sleep(INTERVAL_MS);
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Wraps a provider so every content delta's arrival time is recorded per session, in order. */
function timed(provider: Provider, arrivals: Map<string, number[]>): Provider {
  return {
    ...provider,
    async *complete(request) {
      const times = arrivals.get(request.session_id!) ?? [];
      arrivals.set(request.session_id!, times);
      for await (const delta of provider.complete(request)) {
        if (delta.type === "content") times.push(performance.now());
        yield delta;
      }
    },
  };
}

async function round(backend: Backend) {
  const dataDir = tempDir("bench-runner-");
  // Titles off: a title request after each first reply is not what this bench measures.
  const config = parseConfig({
    providers: { default: { provider: "reference_compatible", model: "bench", base_url: backend.url } },
    titles: { enabled: false },
  });
  const runtime = createRuntime({ config, dataDir, adminToken: TOKEN });
  await runtime.app.ready();
  const { ctx, app } = runtime;
  const arrivals = new Map<string, number[]>();
  const runner = ctx.runner;
  const base = runner.providerFactory;
  runner.providerFactory = (agent) => timed(base(agent), arrivals);
  const commits: Array<{ id: number; at: number }> = [];
  const unsubscribe = ctx.events.commits.subscribe((id) => commits.push({ id, at: performance.now() }));
  const headers = { authorization: `Bearer ${TOKEN}` };

  const sessions: string[] = [];
  for (let i = 0; i < SESSIONS; i++)
    sessions.push((await app.inject({ method: "POST", url: "/sessions", payload: {}, headers })).json().session.id);
  const firstId = ctx.events.latestId;
  const started = performance.now();
  const requests = await Promise.all(
    sessions.map(
      async (sid) =>
        (await app.inject({ method: "POST", url: `/sessions/${sid}/send`, payload: { content: "go" }, headers })).json()
          .request_id as string,
    ),
  );
  await waitIdle(ctx, sessions);
  void requests;
  const elapsed = (performance.now() - started) / 1000;
  unsubscribe();

  const events = ctx.events.list({ sinceId: firstId, limit: 10_000_000, maxBytes: Number.POSITIVE_INFINITY }).events;
  const seen = new Map<string, number>();
  const delays: number[] = [];
  let c = 0;
  for (const event of events) {
    const id = Number(event.event_id);
    while (c < commits.length && commits[c]!.id < id) c++;
    if (event.type !== "partial" || c >= commits.length) continue;
    const n = seen.get(event.session_id!) ?? 0;
    seen.set(event.session_id!, n + 1);
    const arrived = arrivals.get(event.session_id!)?.[n];
    if (arrived !== undefined) delays.push(commits[c]!.at - arrived);
  }
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
  const partials = events.filter((e) => e.type === "partial").length;
  const completed = events.filter((e) => e.type === "request_completed").length;
  if (delays.length !== partials || completed !== SESSIONS)
    throw new Error(`matched ${delays.length} of ${partials} partials; ${completed} of ${SESSIONS} requests completed`);
  return {
    partialsPerReply: partials / SESSIONS,
    eventsPerS: events.length / elapsed,
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    max: Math.max(...delays),
  };
}

/** Waits until no session has a request in flight (asked of the runner on each commit: no reads). */
async function waitIdle(ctx: ReturnType<typeof createRuntime>["ctx"], sessions: string[]): Promise<void> {
  const runner = ctx.runner;
  while (sessions.some((sid) => runner.activeRequest(sid) !== undefined))
    await ctx.events.waitBeyond(ctx.events.latestId, 50);
}

/** Baseline: the same concurrent streams consumed by the provider alone. */
async function baseline(backend: Backend): Promise<number> {
  const settings = providerSettingsSchema.parse({
    provider: "reference_compatible",
    model: "bench",
    base_url: backend.url,
  });
  const provider = createProvider(settings, { clock: systemClock, pacing: new PacingRegistry() });
  const started = performance.now();
  let deltas = 0;
  await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const request = {
        messages: [{ role: "user" as const, content: "go" }],
        stream: true,
        signal: new AbortController().signal,
      };
      for await (const delta of provider.complete(request) as AsyncIterable<ProviderDelta>)
        if (delta.type === "content") deltas++;
    }),
  );
  return deltas / ((performance.now() - started) / 1000);
}

const backend = await startPacedBackend();
const rounds = [];
const baselines = [];
await round(backend); // warm-up: JIT, SQLite page cache
for (let i = 0; i < ROUNDS; i++) {
  rounds.push(await round(backend));
  baselines.push(await baseline(backend));
}
await backend.close();
const p99 = median(rounds.map((r) => r.p99));
console.log(
  JSON.stringify({
    bench: "runner",
    sessions: SESSIONS,
    chunks_per_reply: CHUNKS,
    chunk_interval_ms: INTERVAL_MS,
    rounds: ROUNDS,
    partials_per_reply: median(rounds.map((r) => r.partialsPerReply)),
    events_per_s: Math.round(median(rounds.map((r) => r.eventsPerS))),
    chunk_to_readable_p50_ms: Number(median(rounds.map((r) => r.p50)).toFixed(3)),
    chunk_to_readable_p99_ms: Number(p99.toFixed(3)),
    chunk_to_readable_max_ms: Number(median(rounds.map((r) => r.max)).toFixed(3)),
    baseline_provider_only_deltas_per_s: Math.round(median(baselines)),
    floor_p99_ms: 5,
    floor_met: p99 < 5,
  }),
);
