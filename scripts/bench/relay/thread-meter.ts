// Where a process's CPU went over a phase, by thread (docs/benchmarks.md "Sealed relay"): the JavaScript thread and the
// others (V8's workers: parallel scavenges, concurrent marking and sweeping, freeing array buffers' backing stores;
// and libuv's pool, which the relay's path does not use). process.cpuUsage counts them all as one figure; Linux keeps
// each thread's run time in nanoseconds (/proc/self/task/<tid>/schedstat; Node 20 does not name its threads, so they
// are told apart only as the main one and the rest). Elsewhere the figures are 0.
import { readdirSync, readFileSync } from "node:fs";
import { z } from "zod";

export const threadStats = z.object({ main_ms: z.number(), other_threads_ms: z.number() });
export type ThreadStats = z.infer<typeof threadStats>;

/** Run time so far (ns) by thread id. */
type RunTimes = Map<string, number>;

export function threadMeter(): { reset(): void; read(): ThreadStats } {
  let start = runTimes();
  return {
    reset() {
      start = runTimes();
    },
    read() {
      const end = runTimes();
      const used = { main: 0, other: 0 };
      for (const [tid, ns] of end) {
        const spent = ns - (start.get(tid) ?? 0);
        if (tid === String(process.pid)) used.main += spent;
        else used.other += spent;
      }
      const ms = (ns: number) => Math.round(ns / 1e4) / 100;
      return { main_ms: ms(used.main), other_threads_ms: ms(used.other) };
    },
  };
}

/** Each live thread's run time so far (ns); empty where /proc is not Linux's. */
function runTimes(): RunTimes {
  const times: RunTimes = new Map();
  let tids: string[];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return times;
  }
  for (const tid of tids) {
    try {
      times.set(tid, Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[0]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}
