// Fan-out at scale (docs/benchmarks.md "Benchmark at 10,000 sockets"): 10,000 paired sockets on one bridge process, each
// getting 20 events/s (200,000 deliveries/s), receivers in separate processes; the latency from store commit to
// receipt (p50, p99) and the bridge's RSS per idle socket. Beside it, in the same run, the same load from a raw `ws`
// broadcaster to the same receivers, its frames stamped when their slot was due and the servers still publishing, so
// both sides are measured from the same point under the same load. Prints ONE JSON line.
//
// The sockets are spread over servers of 1,000 devices (one server's grants must fit a 1 MiB frame), each server
// publishing 20 events/s, the servers' events staggered over the period as independent servers' are.
// Needs a descriptor per socket in the bridge child (and in the receivers, a share each): Node raises the soft limit
// to the hard one at start, so a hard `ulimit -Hn` of 20000 is enough (docs/bridge.md says how to raise it).
import { loadavg } from "node:os";
import { readFdLimit } from "../../bridge/socket/fd-limit.ts";
import { percentile } from "./stats.ts";
import { startBenchServer, untilServersJoined, type BenchServer } from "./fanout/bench-servers.ts";
import { bridgeRss, bridgeStatsOf, forkChild, nextMessage, parseBridge, round2, sleep } from "./fanout/processes.ts";
import { phaseMeter } from "./fanout/protocol.ts";
import { ReceiverPool } from "./fanout/receiver-pool.ts";
import { scheduleSlots } from "./fanout/schedule.ts";

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000);
const DEVICES_PER_SERVER = Number(process.env.BENCH_DEVICES_PER_SERVER ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const RECEIVER_PROCESSES = Number(process.env.BENCH_RECEIVER_PROCESSES ?? 4);
const BASELINE = process.env.BENCH_BASELINE !== "0";
/** 0: the servers link without audiences (the base protocol), for scripts/bench/fanout-people.ts's comparison. */
const AUDIENCES = process.env.BENCH_AUDIENCES !== "0";
/**
 * Whether the servers keep publishing (store commit, forwarder, the bridge's ingest) while the raw broadcaster runs:
 * the baseline then shares the machine with the same server load and differs from the bridge's phase only in who
 * fans out. 0: the servers idle during the baseline (the figure before 2026-11-27).
 */
const BASELINE_WITH_SERVERS = process.env.BENCH_BASELINE_SERVERS !== "0";
const BASELINE_FIRST = process.env.BENCH_BASELINE_FIRST === "1";
/** The baseline writes the way the bridge does (scripts/bench/fanout/raw-batched.ts) instead of ws.send per delivery. */
const BASELINE_BATCHED = process.env.BENCH_BASELINE_BATCHED === "1";
/** Bytes of a raw baseline frame: the size of the bridge's frames for these events. */
const FRAME_BYTES = 318;

/** Descriptors the bridge child needs beyond its sockets (listening sockets, servers' links, stdio, files). */
const FD_HEADROOM = 1000;

async function main(): Promise<void> {
  const fdLimit = readFdLimit();
  if (fdLimit !== undefined && fdLimit < SOCKETS + FD_HEADROOM) {
    throw new Error(
      `descriptor limit ${fdLimit} is below ${SOCKETS + FD_HEADROOM}: raise it (ulimit -n 20000; docs/benchmarks.md "Benchmark at 10,000 sockets")`,
    );
  }
  const serverCount = Math.ceil(SOCKETS / DEVICES_PER_SERVER);
  const bridgeProc = forkChild("bridge-child.ts", {
    // One address registers every benchmark server (the default allows 5 new ids an hour per address).
    BENCH_BRIDGE_CONFIG: JSON.stringify({
      serverRegistrationsPerAddress: serverCount + 5,
      maxServers: Math.max(100, serverCount + 5),
    }),
  });
  const ready = await nextMessage(bridgeProc, parseBridge, (m) => m.type === "ready");
  if (ready.type !== "ready") throw new Error("bridge child did not start");

  const servers: BenchServer[] = [];
  for (let s = 0; s < serverCount; s++)
    servers.push(
      startBenchServer(
        `bench-${s}`,
        Math.min(DEVICES_PER_SERVER, SOCKETS - s * DEVICES_PER_SERVER),
        ready.url,
        AUDIENCES,
      ),
    );
  await untilServersJoined(ready.url, serverCount);
  const topicOfToken = new Map(
    servers.flatMap((server) => server.tokens.map((token) => [token, server.topic] as const)),
  );
  const tokens = [...topicOfToken.keys()];

  const pool = new ReceiverPool(RECEIVER_PROCESSES);
  const bridgeStats = () => bridgeStatsOf(bridgeProc);
  const parentMeter = phaseMeter();
  const phase = () => {
    bridgeProc.send({ type: "phase" });
    parentMeter.reset();
  };
  // Every server publishes RATE events/s; slot k goes to server k % servers, so their events interleave evenly.
  const paced = (seconds: number) =>
    scheduleSlots(RATE * seconds * serverCount, RATE * serverCount, (slot) => servers[slot % serverCount]!.publish());

  let rssBefore = 0;
  let rssAfter = 0;
  const bridgePhase = async () => {
    rssBefore = await bridgeRss(bridgeProc);
    await pool.connect(ready.url, tokens, (token) => topicOfToken.get(token)!);
    await sleep(2000);
    rssAfter = await bridgeRss(bridgeProc);
    pool.mode("latency");
    await paced(WARMUP_SECONDS);
    await pool.drain(RATE * WARMUP_SECONDS * tokens.length);
    pool.mode("latency");
    phase();
    await sleep(50);
    const scheduleStart = performance.now();
    await paced(STEADY_SECONDS);
    const scheduleWallS = (performance.now() - scheduleStart) / 1000;
    const report = await pool.drain(RATE * STEADY_SECONDS * tokens.length);
    const stats = await bridgeStats();
    const diag = {
      bridge: stats,
      server: parentMeter.read(),
      receivers: report.receivers,
      closes: report.closes,
      load: loadavg()[0],
    };
    await pool.close();
    return { report, stats, diag, scheduleWallS };
  };

  // The same receivers, the same schedule, from a raw ws broadcaster in the bridge's process: one set of sockets at
  // a time, so the bridge child's descriptors suffice for either.
  const rawPhase = async () => {
    await pool.connect(ready.rawUrl, tokens);
    await sleep(1000);
    const rawPaced = async (seconds: number) => {
      const done = nextMessage(bridgeProc, parseBridge, (m) => m.type === "raw_done");
      bridgeProc.send({
        type: "raw_paced",
        frames: RATE * seconds,
        rate: RATE,
        groups: serverCount,
        bytes: FRAME_BYTES,
        batched: BASELINE_BATCHED,
      });
      // The servers' events reach the bridge, which has no subscribers now: only their cost on the machine remains.
      await Promise.all([done, BASELINE_WITH_SERVERS ? paced(seconds) : undefined]);
    };
    pool.mode("latency");
    await rawPaced(WARMUP_SECONDS);
    await pool.drain(RATE * WARMUP_SECONDS * tokens.length);
    pool.mode("latency");
    phase();
    // How long the schedule took to send: past STEADY_SECONDS, the sender could not keep the rate.
    const scheduleStart = performance.now();
    await rawPaced(STEADY_SECONDS);
    const scheduleWallS = (performance.now() - scheduleStart) / 1000;
    const report = await pool.drain(RATE * STEADY_SECONDS * tokens.length);
    // The broadcaster's own CPU and loop delay over the same phase: both sides' work compared, not only their tails.
    const stats = (await bridgeStats()).stats;
    const diag = { broadcaster: stats, server: parentMeter.read(), receivers: report.receivers, load: loadavg()[0] };
    await pool.close();
    return { report, stats, diag, scheduleWallS };
  };

  // BENCH_BASELINE_FIRST=1 runs the baseline before the bridge: a check that the order (the machine's load drifting,
  // the first phase after 10,000 connects) does not decide the ratio.
  let raw: Awaited<ReturnType<typeof rawPhase>> | undefined;
  if (BASELINE && BASELINE_FIRST) raw = await rawPhase();
  const {
    report: steady,
    stats: steadyBridge,
    diag: steadyDiag,
    scheduleWallS: steadyScheduleWallS,
  } = await bridgePhase();
  if (BASELINE && !BASELINE_FIRST) raw = await rawPhase();
  const baseline = raw?.report;
  const baselineDiag = raw?.diag;
  const rawBroadcasterCpu = raw ? { user_ms: raw.stats.cpu_user_ms, sys_ms: raw.stats.cpu_sys_ms } : undefined;

  const ms = (samples: readonly number[], p: number) => round2(percentile(samples, p));
  const cpuUs = (cpuMs: number, deliveries: number) => round2((cpuMs * 1000) / Math.max(1, deliveries));
  process.stdout.write(
    `${JSON.stringify({
      bench: "fanout-10k",
      audiences: AUDIENCES,
      sockets: tokens.length,
      servers: serverCount,
      events_per_s_per_socket: RATE,
      deliveries_per_s_target: RATE * tokens.length,
      steady_seconds: STEADY_SECONDS,
      steady_deliveries: steady.deliveries,
      steady_expected: RATE * STEADY_SECONDS * tokens.length,
      steady_schedule_wall_s: round2(steadyScheduleWallS),
      latency_p50_ms: ms(steady.latencies, 50),
      latency_p99_ms: ms(steady.latencies, 99),
      latency_max_ms: ms(steady.latencies, 100),
      ...(baseline
        ? {
            raw_with_servers_publishing: BASELINE_WITH_SERVERS,
            raw_first: BASELINE_FIRST,
            raw_batched: BASELINE_BATCHED,
            raw_schedule_wall_s: round2(raw!.scheduleWallS),
            raw_ws_latency_p50_ms: ms(baseline.latencies, 50),
            raw_ws_latency_p99_ms: ms(baseline.latencies, 99),
            raw_ws_deliveries: baseline.deliveries,
            raw_complete: baseline.complete,
            p99_ratio_to_raw: round2(percentile(steady.latencies, 99) / percentile(baseline.latencies, 99)),
          }
        : {}),
      bridge_cpu_us_per_delivery: {
        user: cpuUs(steadyBridge.stats.cpu_user_ms, steady.deliveries),
        sys: cpuUs(steadyBridge.stats.cpu_sys_ms, steady.deliveries),
      },
      ...(rawBroadcasterCpu && baseline
        ? {
            raw_cpu_us_per_delivery: {
              user: cpuUs(rawBroadcasterCpu.user_ms, baseline.deliveries),
              sys: cpuUs(rawBroadcasterCpu.sys_ms, baseline.deliveries),
            },
          }
        : {}),
      bridge_rss_per_idle_socket_bytes: Math.round((rssAfter - rssBefore) / tokens.length),
      misordered: steady.misordered,
      receiver_closes: steady.closes,
      steady_complete: steady.complete,
      load_average_1m: round2(loadavg()[0]!),
      ...(process.env.BENCH_DIAG
        ? { diag: { steady: steadyDiag, ...(baselineDiag ? { baseline: baselineDiag } : {}) } }
        : {}),
    })}\n`,
  );
  pool.stop();
  for (const server of servers) await server.close();
  bridgeProc.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
