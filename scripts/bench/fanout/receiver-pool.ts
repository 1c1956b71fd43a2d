// The receiver processes of a fan-out benchmark, driven as one: connect a share of the tokens each, switch mode,
// and collect their reports (summed), or wait until every expected delivery arrived.
import type { ChildProcess } from "node:child_process";
import { forkChild, nextMessage, parseReceiver, sleep } from "./processes.ts";
import type { FromReceivers, ToReceivers } from "./protocol.ts";

export interface PoolReport {
  deliveries: number;
  first: number;
  last: number;
  latencies: number[];
  closes: Record<string, number>;
  misordered: number;
  receivers: unknown[];
}

/** The receiver processes' reports as one: counts summed, close codes counted across processes, samples joined. */
export function sumReports(reports: ReadonlyArray<Extract<FromReceivers, { type: "report" }>>): PoolReport {
  const closes: Record<string, number> = {};
  for (const m of reports) for (const [code, n] of Object.entries(m.closes)) closes[code] = (closes[code] ?? 0) + n;
  return {
    deliveries: reports.reduce((sum, m) => sum + m.deliveries, 0),
    first: Math.min(...reports.map((m) => m.first || Infinity)),
    last: Math.max(...reports.map((m) => m.last)),
    latencies: reports.flatMap((m) => m.latencies),
    closes,
    misordered: reports.reduce((sum, m) => sum + m.misordered, 0),
    receivers: reports.map((m) => m.stats),
  };
}

export class ReceiverPool {
  private readonly procs: ChildProcess[];

  constructor(processes: number) {
    this.procs = Array.from({ length: processes }, () => forkChild("receivers.ts"));
  }

  /** Every process connects (and joins `topicOf(token)` when given) its share of `tokens`; resolves once all are open. */
  async connect(url: string, tokens: readonly string[], topicOf?: (token: string) => string): Promise<void> {
    await Promise.all(
      this.procs.map((proc, i) => {
        const share = tokens.filter((_, k) => k % this.procs.length === i);
        const done = nextMessage(proc, parseReceiver, (m) => m.type === "connected");
        const topics = topicOf ? share.map(topicOf) : [];
        proc.send({
          type: "connect",
          url,
          topic: topics[0] ?? "",
          topics,
          tokens: share,
          join: topicOf !== undefined,
        } satisfies ToReceivers);
        return done;
      }),
    );
  }

  /** Starts a phase: counters and samples start over. */
  mode(mode: "latency" | "count"): void {
    for (const proc of this.procs) proc.send({ type: "mode", mode } satisfies ToReceivers);
  }

  async report(withLatencies = true): Promise<PoolReport> {
    const replies = this.procs.map((proc) => nextMessage(proc, parseReceiver, (m) => m.type === "report"));
    for (const proc of this.procs) proc.send({ type: "report", latencies: withLatencies } satisfies ToReceivers);
    return sumReports((await Promise.all(replies)).flatMap((m) => (m.type === "report" ? [m] : [])));
  }

  /** Waits until `expected` deliveries arrived; gives up after `stallMs` without progress and says so (`complete`). */
  async drain(expected: number, stallMs = 10_000): Promise<PoolReport & { complete: boolean }> {
    let latest = await this.report(false);
    let progressAt = Date.now();
    while (latest.deliveries < expected && Date.now() - progressAt < stallMs) {
      await sleep(100);
      const next = await this.report(false);
      if (next.deliveries > latest.deliveries) progressAt = Date.now();
      latest = next;
    }
    const final = await this.report(true);
    return { ...final, complete: final.deliveries === expected };
  }

  /** Every process closes all its sockets; resolves once they are gone. */
  async close(): Promise<void> {
    await Promise.all(
      this.procs.map((proc) => {
        const done = nextMessage(proc, parseReceiver, (m) => m.type === "closed");
        proc.send({ type: "close" } satisfies ToReceivers);
        return done;
      }),
    );
  }

  stop(): void {
    for (const proc of this.procs) proc.disconnect();
  }
}
