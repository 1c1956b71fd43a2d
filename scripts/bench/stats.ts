// Small statistics shared by the benchmarks: medians of rounds, percentiles of latency samples.
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** Runs `oneRun` `runs` times, one after another, and answers the median of each figure it reports. */
export async function medianOfRuns(
  runs: number,
  oneRun: () => Promise<Record<string, number>>,
): Promise<Record<string, number>> {
  const results: Record<string, number>[] = [];
  for (let run = 0; run < runs; run++) results.push(await oneRun());
  return Object.fromEntries(Object.keys(results[0]!).map((key) => [key, median(results.map((r) => r[key]!))]));
}
