// The cluster fan-out benchmark (BENCH_CLUSTER=1 node --import tsx scripts/bench/fanout.ts; docs/bridge.md
// "Cluster"): the same receivers and events as the single-node benchmark, run twice in one process tree and one run:
// against one single node (the baseline), and against two cluster nodes sharing a redis-server started here on a
// random port, the server linked on node A and the receivers split between A and B. Saturation deliveries/s is the
// median of BENCH_ROUNDS bursts per setup; the steady phase (20 events/s) gives the cluster's latency tail. Prints
// ONE JSON line.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { z } from "zod";
import { parseConfig } from "../../../server/config/load.ts";
import { startForwarder } from "../../../server/forwarder/forwarder.ts";
import { createRuntime } from "../../../server/runtime.ts";
import { startRedis } from "../../../test/support/redis.ts";
import { forkChild, nextMessage as next } from "../child-process.ts";
import { fromReceivers, wallNow, type ToReceivers } from "./protocol.ts";
import { sumReports } from "./receiver-pool.ts";

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1000);
const STEADY_RATE = 20;
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 5);
const SATURATION_EVENTS = Number(process.env.BENCH_SATURATION_EVENTS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAD = "x".repeat(110);
const here = fileURLToPath(new URL("./", import.meta.url));

const fromNode = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), url: z.string() }),
  z.object({ type: z.literal("devices"), count: z.number() }),
]);

const child = (file: string, args: string[] = []): ChildProcess => forkChild(here, file, { args });

interface SetupResult {
  saturation_deliveries_per_s: number[];
  latency_p50_ms: number;
  latency_p99_ms: number;
  misordered: number;
  complete: boolean;
  /** Receiver sockets the bridge closed (slow consumers on a loaded machine), since the start. */
  closes: number;
}

/** One setup: its nodes, a server, SOCKETS paired receivers split over the nodes, a steady phase, then bursts. */
async function measure(nodeConfigs: Array<Record<string, unknown>>): Promise<SetupResult> {
  const nodes = nodeConfigs.map((config) => child("cluster-node-child.ts", [JSON.stringify(config)]));
  const urls = await Promise.all(
    nodes.map(
      async (node) =>
        (
          (await next(
            node,
            (m) => fromNode.parse(m),
            (m) => m.type === "ready",
          )) as { url: string }
        ).url,
    ),
  );
  const dataDir = mkdtempSync(join(tmpdir(), "bench-cluster-server-"));
  const runtime = createRuntime({
    config: parseConfig({ server: { server_id: "bench" } }),
    dataDir,
    adminToken: "bench-admin",
    log: pino({ level: "silent" }),
  });
  const ctx = runtime.ctx;
  const tokens: string[] = [];
  for (let i = 0; i < SOCKETS; i++) {
    const redeemed = ctx.pairing.redeem(ctx.pairing.createCode().code, `bench-${i}`);
    if (redeemed.ok) tokens.push(redeemed.device_token);
  }
  const forwarder = startForwarder(ctx, { bridgeUrl: urls[0]! });
  // Every node must know the grants before its receivers join.
  for (const node of nodes) {
    for (;;) {
      const reply = next(
        node,
        (m) => fromNode.parse(m),
        (m) => m.type === "devices",
      );
      node.send({ type: "devices" });
      if (((await reply) as { count: number }).count >= tokens.length) break;
      await sleep(50);
    }
  }
  const receivers = nodes.map(() => child("receivers.ts"));
  const toAll = (message: ToReceivers) => receivers.forEach((r) => r.send(message));
  await Promise.all(
    receivers.map((r, i) => {
      const done = next(
        r,
        (m) => fromReceivers.parse(m),
        (m) => m.type === "connected",
      );
      r.send({
        type: "connect",
        url: urls[i]!,
        topic: "events:server:bench",
        tokens: tokens.filter((_, k) => k % receivers.length === i),
        join: true,
      } satisfies ToReceivers);
      return done;
    }),
  );
  await sleep(500);
  const report = async () => {
    const replies = receivers.map((r) =>
      next(
        r,
        (m) => fromReceivers.parse(m),
        (m) => m.type === "report",
      ),
    );
    toAll({ type: "report" });
    const summed = sumReports((await Promise.all(replies)).flatMap((m) => (m.type === "report" ? [m] : [])));
    return { ...summed, closes: Object.values(summed.closes).reduce((a, b) => a + b, 0) };
  };
  const drain = async (expected: number) => {
    let latest = await report();
    let progressAt = Date.now();
    while (latest.deliveries < expected && Date.now() - progressAt < 10_000) {
      await sleep(100);
      const fresh = await report();
      if (fresh.deliveries > latest.deliveries) progressAt = Date.now();
      latest = fresh;
    }
    return { ...latest, complete: latest.deliveries === expected };
  };
  const publish = () => ctx.events.publish({ type: "bench", session_id: "bench", sent_at: wallNow(), pad: PAD });

  toAll({ type: "mode", mode: "latency" });
  await sleep(50);
  const start = performance.now();
  const steadyEvents = STEADY_RATE * STEADY_SECONDS;
  for (let i = 0; i < steadyEvents; i++) {
    publish();
    await sleep(Math.max(0, start + ((i + 1) * 1000) / STEADY_RATE - performance.now()));
  }
  const steady = await drain(steadyEvents * tokens.length);
  const sorted = steady.latencies.sort((a, b) => a - b);
  const pct = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN);

  const rates: number[] = [];
  let misordered = steady.misordered;
  let complete = steady.complete;
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    toAll({ type: "mode", mode: "count" });
    await sleep(50);
    for (let i = 0; i < SATURATION_EVENTS; i++) {
      publish();
      if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
    }
    const burst = await drain(SATURATION_EVENTS * tokens.length);
    rates.push(Math.round(burst.deliveries / ((burst.last - burst.first) / 1000)));
    misordered += burst.misordered;
    complete &&= burst.complete;
  }
  const closes = (await report()).closes;
  receivers.forEach((r) => r.disconnect());
  await forwarder.stop();
  await runtime.close();
  nodes.forEach((node) => node.disconnect());
  rmSync(dataDir, { recursive: true, force: true });
  await sleep(300);
  return {
    saturation_deliveries_per_s: rates,
    latency_p50_ms: pct(50),
    latency_p99_ms: pct(99),
    misordered,
    complete,
    closes,
  };
}

export async function runClusterBench(): Promise<void> {
  const single = await measure([{}]);
  const redis = await startRedis();
  const cluster = { redisUrl: redis.url, keyPrefix: "bench" };
  const two = await measure([{ cluster: { ...cluster, nodeId: "a" } }, { cluster: { ...cluster, nodeId: "b" } }]);
  await redis.stop();
  const singleRate = median(single.saturation_deliveries_per_s);
  const clusterRate = median(two.saturation_deliveries_per_s);
  process.stdout.write(
    `${JSON.stringify({
      bench: "fanout_cluster",
      sockets: SOCKETS,
      nodes: 2,
      single_saturation_deliveries_per_s: singleRate,
      cluster_saturation_deliveries_per_s: clusterRate,
      ratio_cluster_to_single: round(clusterRate / singleRate),
      single_rounds: single.saturation_deliveries_per_s,
      cluster_rounds: two.saturation_deliveries_per_s,
      single_latency_p50_ms: single.latency_p50_ms,
      single_latency_p99_ms: single.latency_p99_ms,
      cluster_latency_p50_ms: two.latency_p50_ms,
      cluster_latency_p99_ms: two.latency_p99_ms,
      steady_events_per_s: STEADY_RATE,
      misordered: single.misordered + two.misordered,
      complete: single.complete && two.complete,
      receiver_closes: { single: single.closes, cluster: two.closes },
      load_average_1m: round(loadavg()[0]!),
    })}\n`,
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (n: number) => Math.round(n * 100) / 100;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
