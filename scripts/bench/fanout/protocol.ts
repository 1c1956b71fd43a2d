// Messages between the fan-out benchmark's processes (IPC), validated like every other boundary.
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { z } from "zod";

export const wallNow = (): number => performance.timeOrigin + performance.now();

/** What one process spent in a phase: CPU (user, system) and its event loop's delay. */
export const processStats = z.object({
  cpu_user_ms: z.number(),
  cpu_sys_ms: z.number(),
  loop_delay_p99_ms: z.number(),
  loop_delay_max_ms: z.number(),
  /** Linux only: time the main thread was runnable but waiting for a core (schedstat), and its context switches. */
  run_queue_wait_ms: z.number().optional(),
  switches_voluntary: z.number().optional(),
  switches_involuntary: z.number().optional(),
});
export type ProcessStats = z.infer<typeof processStats>;

export const toReceivers = z.discriminatedUnion("type", [
  /** `topics`, when given, is each token's topic (tokens of several servers); else every token joins `topic`. */
  z.object({
    type: z.literal("connect"),
    url: z.string(),
    topic: z.string(),
    topics: z.array(z.string()).optional(),
    tokens: z.array(z.string()),
    join: z.boolean(),
    /** e2e mode: the content key to open sealed pushes with (e2e.ts). */
    e2e: z.object({ server_id: z.string(), key_id: z.number(), key: z.string() }).optional(),
  }),
  z.object({ type: z.literal("mode"), mode: z.enum(["latency", "count"]) }),
  /** `latencies: false` leaves the samples out (a drain polling 2 million of them would measure its own IPC). */
  z.object({ type: z.literal("report"), latencies: z.boolean().optional() }),
  /** Closes every socket (answered `closed`): the next set of sockets gets the descriptors back. */
  z.object({ type: z.literal("close") }),
]);
export type ToReceivers = z.infer<typeof toReceivers>;

export const fromReceivers = z.discriminatedUnion("type", [
  z.object({ type: z.literal("connected"), sockets: z.number() }),
  z.object({ type: z.literal("closed") }),
  z.object({
    type: z.literal("report"),
    deliveries: z.number(),
    first: z.number(),
    last: z.number(),
    latencies: z.array(z.number()),
    /** Events whose id was not above the previous one on the same socket (duplicates or out of order). */
    misordered: z.number(),
    /** Sockets closed by the far side since the start, by close code. */
    closes: z.record(z.string(), z.number()),
    stats: processStats,
  }),
]);
export type FromReceivers = z.infer<typeof fromReceivers>;

export const toBridgeChild = z.discriminatedUnion("type", [
  z.object({ type: z.literal("rss") }),
  z.object({ type: z.literal("raw_broadcast"), frames: z.number(), bytes: z.number() }),
  /**
   * The baseline at a steady rate: the clients in `groups` (like topics), each group sent `frames` frames at `rate`
   * per second, the groups' sends staggered over the period; each frame stamped `sent_at` when sent.
   */
  z.object({
    type: z.literal("raw_paced"),
    frames: z.number(),
    rate: z.number(),
    groups: z.number().int().min(1),
    bytes: z.number(),
    /** The batched broadcaster (raw-batched.ts) instead of one ws.send per socket and frame. */
    batched: z.boolean().optional(),
  }),
  /** Starts a new phase: resets the CPU, loop delay and broadcast timings. */
  z.object({ type: z.literal("phase") }),
  z.object({ type: z.literal("stats") }),
]);
export const bridgeStats = z.object({
  stats: processStats,
  /** Per relayed event: time from store commit (sent_at) to the start of the bridge's broadcast, and its duration. */
  arrival_p50_ms: z.number(),
  arrival_p99_ms: z.number(),
  broadcast_p50_ms: z.number(),
  broadcast_p99_ms: z.number(),
  /** Largest ws bufferedAmount over the subscribers, sampled after each broadcast. */
  buffered_max_bytes: z.number(),
  slow_consumer_drops: z.number(),
  sockets: z.number(),
  events_relayed: z.number(),
  duplicate_events: z.number(),
  joins_ok: z.number(),
  joins_refused: z.number(),
});
export type BridgeStats = z.infer<typeof bridgeStats>;
export const fromBridgeChild = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), url: z.string(), rawUrl: z.string() }),
  z.object({ type: z.literal("rss"), rss: z.number() }),
  z.object({ type: z.literal("raw_done") }),
  z.object({ type: z.literal("stats"), bridge: bridgeStats }),
]);
export type FromBridgeChild = z.infer<typeof fromBridgeChild>;

/** CPU and loop delay since the last `reset()`, for one process. */
export function phaseMeter(): { reset(): void; read(): ProcessStats } {
  let cpu = process.cpuUsage();
  let sched = schedCounters();
  let histogram = loopHistogram();
  return {
    reset() {
      cpu = process.cpuUsage();
      sched = schedCounters();
      histogram.disable();
      histogram = loopHistogram();
    },
    read() {
      const used = process.cpuUsage(cpu);
      const now = schedCounters();
      return {
        ...(now && sched
          ? {
              run_queue_wait_ms: Math.round((now.waitNs - sched.waitNs) / 1e6),
              switches_voluntary: now.voluntary - sched.voluntary,
              switches_involuntary: now.involuntary - sched.involuntary,
            }
          : {}),
        cpu_user_ms: Math.round(used.user / 1000),
        cpu_sys_ms: Math.round(used.system / 1000),
        loop_delay_p99_ms: Math.round(histogram.percentile(99) / 1e4) / 100,
        loop_delay_max_ms: Math.round(histogram.max / 1e4) / 100,
      };
    },
  };
}

/** The main thread's scheduler counters (Linux /proc; undefined elsewhere): why a busy loop ran late. */
function schedCounters(): { waitNs: number; voluntary: number; involuntary: number } | undefined {
  try {
    const waitNs = Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[1]);
    const status = readFileSync("/proc/thread-self/status", "utf8");
    const count = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
    return { waitNs, voluntary: count("voluntary_ctxt_switches"), involuntary: count("nonvoluntary_ctxt_switches") };
  } catch {
    return undefined;
  }
}

function loopHistogram() {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  return h;
}
