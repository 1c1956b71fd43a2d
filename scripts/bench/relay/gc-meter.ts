// The garbage a process makes and collects over a phase (docs/benchmarks.md "Sealed relay"): V8's GC profiler records
// the heap before and after every collection, so the bytes allocated in a phase are what each collection found used
// beyond what the last one left (and what is used at the end beyond the last one), and the collections' own time is
// their count and cost by kind. `external` is the same for memory outside V8's heap that V8 is told of (ArrayBuffer
// backing stores: Buffers, typed arrays), the kind OpenSSL's cipher calls hand back.
import { GCProfiler, getHeapStatistics } from "node:v8";
import { z } from "zod";

export const gcStats = z.object({
  /** Bytes allocated on V8's heap over the phase. */
  heap_allocated_bytes: z.number(),
  /** Bytes of backing stores made over the phase (what each collection found beyond what the last one left). */
  external_allocated_bytes: z.number(),
  scavenges: z.number(),
  /** Mark-compacts, incremental marking steps and the rest. */
  major: z.number(),
  scavenge_ms: z.number(),
  major_ms: z.number(),
});
export type GcStats = z.infer<typeof gcStats>;

type HeapUse = { usedHeapSize: number; externalMemory: number };

export function gcMeter(): { reset(): void; read(): GcStats } {
  let profiler = new GCProfiler();
  let start: HeapUse = heapUse();
  profiler.start();
  return {
    reset() {
      profiler.stop();
      profiler = new GCProfiler();
      start = heapUse();
      profiler.start();
    },
    read() {
      const end = heapUse();
      const statistics = profiler.stop()?.statistics ?? [];
      profiler = new GCProfiler();
      profiler.start();
      return summarize(start, statistics, end);
    },
  };
}

function heapUse(): HeapUse {
  const { used_heap_size, external_memory } = getHeapStatistics();
  return { usedHeapSize: used_heap_size, externalMemory: external_memory };
}

type Collection = {
  gcType: string;
  cost: number;
  beforeGC: { heapStatistics: HeapUse };
  afterGC: { heapStatistics: HeapUse };
};

function summarize(start: HeapUse, collections: Collection[], end: HeapUse): GcStats {
  const stats = { heap: 0, external: 0, scavenges: 0, major: 0, scavengeUs: 0, majorUs: 0 };
  let left = start;
  const grown = (from: HeapUse, to: HeapUse) => {
    stats.heap += Math.max(0, to.usedHeapSize - from.usedHeapSize);
    stats.external += Math.max(0, to.externalMemory - from.externalMemory);
  };
  for (const { gcType, cost, beforeGC, afterGC } of collections) {
    grown(left, beforeGC.heapStatistics);
    left = afterGC.heapStatistics;
    if (gcType === "Scavenge") (stats.scavenges++, (stats.scavengeUs += cost));
    else (stats.major++, (stats.majorUs += cost));
  }
  grown(left, end);
  return {
    heap_allocated_bytes: stats.heap,
    external_allocated_bytes: stats.external,
    scavenges: stats.scavenges,
    major: stats.major,
    scavenge_ms: Math.round(stats.scavengeUs) / 1000,
    major_ms: Math.round(stats.majorUs) / 1000,
  };
}
