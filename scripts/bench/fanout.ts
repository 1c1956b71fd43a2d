// Fan-out benchmark (docs/benchmarks.md "Bridge: fan-out"): one server topic, 1,000 paired sockets in a separate process,
// events published into the server's store at 20/s (20,000 deliveries/s), then as fast as the pipeline goes; beside
// a raw `ws` broadcast of same-size frames to 1,000 sockets in the same run. Both modes run, each with its own server
// and raw baseline: plain devices (session_event), then end-to-end encrypting ones (sealed_event, fanout/e2e.ts); the
// e2e figures and their cost against plain go under `e2e`. Prints ONE JSON line.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { parseConfig } from "../../server/config/load.ts";
import { startForwarder } from "../../server/forwarder/forwarder.ts";
import { createRuntime } from "../../server/runtime.ts";
import {
  bridgeRss,
  bridgeStatsOf,
  forkChild as child,
  nextMessage,
  parseBridge,
  parseReceiver,
} from "./fanout/processes.ts";
import { phaseMeter, wallNow, type ToReceivers } from "./fanout/protocol.ts";
import { deviceKeyFor, receiverKey, type BenchMode } from "./fanout/e2e.ts";
import { sumReports } from "./fanout/receiver-pool.ts";

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1000);
const RECEIVER_PROCESSES = 2;
const STEADY_RATE = 20;
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const SATURATION_EVENTS = Number(process.env.BENCH_SATURATION_EVENTS ?? 1000);
const PAD = "x".repeat(110);

async function main(): Promise<void> {
  // BENCH_CLUSTER=1: two bridge nodes sharing a redis-server against one node, in the same run (fanout/cluster.ts).
  if (process.env.BENCH_CLUSTER === "1") return (await import("./fanout/cluster.ts")).runClusterBench();
  const bridgeProc = child("bridge-child.ts");
  const ready = await nextMessage(bridgeProc, parseBridge, (m) => m.type === "ready");
  if (ready.type !== "ready") throw new Error("bridge child did not start");
  const plain = await runMode(bridgeProc, ready.url, ready.rawUrl, "plain");
  const e2e = await runMode(bridgeProc, ready.url, ready.rawUrl, "e2e");
  const cost = {
    saturation_ratio_to_plain: round(
      (e2e.saturation_deliveries_per_s as number) / (plain.saturation_deliveries_per_s as number),
    ),
    latency_p50_adds_ms: round((e2e.latency_p50_ms as number) - (plain.latency_p50_ms as number)),
  };
  process.stdout.write(`${JSON.stringify({ ...plain, e2e: { ...e2e, ...cost } })}\n`);
  bridgeProc.disconnect();
}

async function runMode(
  bridgeProc: ChildProcess,
  url: string,
  rawUrl: string,
  mode: BenchMode,
): Promise<Record<string, unknown>> {
  const ready = { url, rawUrl };
  const serverId = mode === "plain" ? "bench" : "bench-e2e";
  const rss = () => bridgeRss(bridgeProc);

  const dataDir = mkdtempSync(join(tmpdir(), "bench-server-"));
  const runtime = createRuntime({
    config: parseConfig({ server: { server_id: serverId } }),
    dataDir,
    adminToken: "bench-admin",
    log: pino({ level: "silent" }),
  });
  const ctx = runtime.ctx;
  const pairing = ctx.pairing;
  // The one person here (Owner) owns the benchmark's chat: its events are sealed under Owner's content key.
  const owner = ctx.e2e.audiences.livePeople()[0]!;
  const benchSession = ctx.sessions.create("default").id;
  const tokens: string[] = [];
  for (let i = 0; i < SOCKETS; i++) {
    const redeemed = pairing.redeem(pairing.createCode().code, `bench-${i}`, deviceKeyFor(mode));
    if (redeemed.ok) tokens.push(redeemed.device_token);
  }
  const ackTimeoutMs = process.env.BENCH_ACK_TIMEOUT_MS ? Number(process.env.BENCH_ACK_TIMEOUT_MS) : undefined;
  const forwarder = startForwarder(ctx, { bridgeUrl: ready.url, ...(ackTimeoutMs ? { ackTimeoutMs } : {}) });
  const httpUrl = ready.url.replace("ws://", "http://").replace(/\/socket$/, "");
  await waitFor(async () => (await (await fetch(`${httpUrl}/metrics`)).text()).includes("bridge_servers_connected 1"));
  // The grants push follows the join; give it a moment to land before apps join.
  await sleep(300);

  const receivers = Array.from({ length: RECEIVER_PROCESSES }, () => child("receivers.ts"));
  const toAll = (message: ToReceivers) => receivers.forEach((r) => r.send(message));
  const share = (list: string[], i: number) => list.filter((_, k) => k % RECEIVER_PROCESSES === i);
  const rssBefore = await rss();
  await Promise.all(
    receivers.map((r, i) => {
      const done = nextMessage(r, parseReceiver, (m) => m.type === "connected");
      const e2e = mode === "e2e" ? { e2e: receiverKey(serverId, ctx.e2e.contentKeys, owner) } : {};
      r.send({
        type: "connect",
        url: ready.url,
        topic: `events:server:${serverId}`,
        tokens: share(tokens, i),
        join: true,
        ...e2e,
      } satisfies ToReceivers);
      return done;
    }),
  );
  await sleep(500);
  const rssAfter = await rss();

  const report = async () => {
    const replies = receivers.map((r) => nextMessage(r, parseReceiver, (m) => m.type === "report"));
    toAll({ type: "report" });
    const all = await Promise.all(replies);
    return sumReports(all.flatMap((m) => (m.type === "report" ? [m] : [])));
  };
  // Waits until every delivery arrived; gives up only after 10 s without progress (and says so: `complete`).
  const drain = async (expected: number) => {
    let latest = await report();
    let progressAt = Date.now();
    while (latest.deliveries < expected && Date.now() - progressAt < 10_000) {
      await sleep(100);
      const next = await report();
      if (next.deliveries > latest.deliveries) progressAt = Date.now();
      latest = next;
    }
    return { ...latest, complete: latest.deliveries === expected };
  };
  const bridgeStats = () => bridgeStatsOf(bridgeProc);
  const parentMeter = phaseMeter();
  const phase = () => {
    bridgeProc.send({ type: "phase" });
    parentMeter.reset();
  };
  const publish = () => ctx.events.publish({ type: "bench", session_id: benchSession, sent_at: wallNow(), pad: PAD });

  // Steady load: 20 events/s on a fixed schedule (a late timer does not stretch the period), latency from commit to
  // receipt. A warm-up at the same rate first (JIT, socket buffers), not measured.
  const paced = async (events: number) => {
    const start = performance.now();
    for (let i = 0; i < events; i++) {
      publish();
      const due = start + ((i + 1) * 1000) / STEADY_RATE;
      await sleep(Math.max(0, due - performance.now()));
    }
  };
  toAll({ type: "mode", mode: "latency" });
  await paced(STEADY_RATE * WARMUP_SECONDS);
  await drain(STEADY_RATE * WARMUP_SECONDS * tokens.length);
  toAll({ type: "mode", mode: "latency" });
  phase();
  await sleep(50);
  const steadyEvents = STEADY_RATE * STEADY_SECONDS;
  await paced(steadyEvents);
  const steady = await drain(steadyEvents * tokens.length);
  const steadyDiag = {
    bridge: await bridgeStats(),
    server: parentMeter.read(),
    receivers: steady.receivers,
    closes: steady.closes,
    load: loadavg()[0],
  };
  const sorted = steady.latencies.sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  const steadyTail = {
    p90: round(pct(90)),
    p95: round(pct(95)),
    p99: round(pct(99)),
    p999: round(pct(99.9)),
    max: round(sorted.at(-1) ?? NaN),
  };

  // Saturation through the bridge: publish in bursts, yielding so the forwarder can push and receive acks.
  toAll({ type: "mode", mode: "count" });
  phase();
  await sleep(50);
  for (let i = 0; i < SATURATION_EVENTS; i++) {
    publish();
    if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
  }
  const saturated = await drain(SATURATION_EVENTS * tokens.length);
  const saturatedDiag = {
    bridge: await bridgeStats(),
    server: parentMeter.read(),
    receivers: saturated.receivers,
    closes: saturated.closes,
    load: loadavg()[0],
  };
  const bridgeRate = saturated.deliveries / ((saturated.last - saturated.first) / 1000);

  // Baseline: raw ws broadcast of same-size frames to the same number of sockets, from the same process.
  await Promise.all(
    receivers.map((r, i) => {
      const done = nextMessage(r, parseReceiver, (m) => m.type === "connected");
      r.send({
        type: "connect",
        url: ready.rawUrl,
        topic: "",
        tokens: share(tokens, i),
        join: false,
      } satisfies ToReceivers);
      return done;
    }),
  );
  toAll({ type: "mode", mode: "count" });
  phase();
  await sleep(50);
  const rawDone = nextMessage(bridgeProc, parseBridge, (m) => m.type === "raw_done");
  bridgeProc.send({ type: "raw_broadcast", frames: SATURATION_EVENTS, bytes: 300 });
  await rawDone;
  const raw = await drain(SATURATION_EVENTS * tokens.length);
  const rawDiag = {
    bridge: (await bridgeStats()).stats,
    receivers: raw.receivers,
    closes: raw.closes,
    load: loadavg()[0],
  };
  const rawRate = raw.deliveries / ((raw.last - raw.first) / 1000);

  const sampleEvent = {
    event_id: "0".repeat(20),
    type: "bench",
    session_id: benchSession,
    timestamp: new Date().toISOString(),
    sent_at: wallNow(),
    pad: PAD,
  };
  const sealedSample =
    mode === "e2e"
      ? ["sealed_event", ctx.e2e.sealEvent(owner, sampleEvent.event_id, JSON.stringify(sampleEvent))]
      : ["session_event", { event: sampleEvent }];
  const sample = JSON.stringify([null, null, `events:server:${serverId}`, ...sealedSample]);
  const figures = {
    bench: "fanout",
    mode,
    sockets: tokens.length,
    frame_bytes: sample.length,
    steady_events_per_s: STEADY_RATE,
    steady_deliveries: steady.deliveries,
    steady_expected: steadyEvents * tokens.length,
    latency_p50_ms: round(pct(50)),
    latency_p99_ms: round(pct(99)),
    saturation_deliveries_per_s: Math.round(bridgeRate),
    saturation_delivered: saturated.deliveries,
    raw_ws_deliveries_per_s: Math.round(rawRate),
    raw_delivered: raw.deliveries,
    ratio_to_raw: round(bridgeRate / rawRate),
    bridge_rss_per_idle_socket_bytes: Math.round((rssAfter - rssBefore) / tokens.length),
    misordered: steady.misordered + saturated.misordered + raw.misordered,
    receiver_closes: raw.closes,
    steady_complete: steady.complete,
    saturation_complete: saturated.complete,
    raw_complete: raw.complete,
    load_average_1m: round(loadavg()[0]!),
    ...(process.env.BENCH_DIAG
      ? { diag: { steady: { ...steadyDiag, latency: steadyTail }, saturation: saturatedDiag, raw: rawDiag } }
      : {}),
  };
  receivers.forEach((r) => r.disconnect());
  await forwarder.stop();
  await runtime.close();
  rmSync(dataDir, { recursive: true, force: true });
  return figures;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n: number) => Math.round(n * 100) / 100;

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error("the server never joined the bridge");
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
