// Fan-out with people (docs/benchmarks.md "Fan-out with audiences"): scripts/bench/fanout-10k.ts run in pairs, the
// servers linked with audiences (each event's audience and per-person forms; the bridge matches every socket's tag)
// and without (the base protocol: one audience, as before people), the same deliveries either way (the one person
// owns every device, so every event's audience holds every socket it is sent to). The runs alternate so both see the
// machine's load alike; the figures are the median of BENCH_RUNS (5) runs of each: p99 latency per delivered frame,
// their ratio (with ÷ without, the target is 1.2 at most), and the bridge's RSS per idle socket with the per-socket
// audience in place (the target is 6,000 B at most). The baseline is the runs without audiences. Prints ONE JSON line.
// Every fanout-10k variable (BENCH_SOCKETS, BENCH_STEADY_SECONDS, ...) passes through; its raw-ws baseline is off.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median } from "./stats.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SCRIPT = fileURLToPath(new URL("./fanout-10k.ts", import.meta.url));

interface RunFigures {
  audiences: boolean;
  latency_p99_ms: number;
  steady_deliveries: number;
  steady_expected: number;
  bridge_rss_per_idle_socket_bytes: number;
}

function runOnce(audiences: boolean): Promise<RunFigures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
      env: { ...process.env, BENCH_AUDIENCES: audiences ? "1" : "0", BENCH_BASELINE: "0" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0) return reject(new Error(`fanout-10k exited ${code}: ${line}`));
      resolve(JSON.parse(line) as RunFigures);
    });
  });
}

const round2 = (n: number) => Math.round(n * 100) / 100;

async function main(): Promise<void> {
  const runs: RunFigures[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternating which goes first cancels a drift in the machine's load within a pair.
    const order = i % 2 === 0 ? [true, false] : [false, true];
    for (const audiences of order) runs.push(await runOnce(audiences));
  }
  const withAudiences = runs.filter((run) => run.audiences);
  const without = runs.filter((run) => !run.audiences);
  const p99 = (of: RunFigures[]) => median(of.map((run) => run.latency_p99_ms));
  const complete = runs.every((run) => run.steady_deliveries === run.steady_expected);
  process.stdout.write(
    `${JSON.stringify({
      bench: "fanout-people",
      runs: RUNS,
      complete,
      p99_ms_with_audiences: round2(p99(withAudiences)),
      p99_ms_without_audiences: round2(p99(without)),
      p99_ratio: round2(p99(withAudiences) / p99(without)),
      p99_ms_each_with: withAudiences.map((run) => run.latency_p99_ms),
      p99_ms_each_without: without.map((run) => run.latency_p99_ms),
      rss_per_idle_socket_bytes_with_audiences: Math.round(
        median(withAudiences.map((run) => run.bridge_rss_per_idle_socket_bytes)),
      ),
      rss_per_idle_socket_bytes_without_audiences: Math.round(
        median(without.map((run) => run.bridge_rss_per_idle_socket_bytes)),
      ),
    })}\n`,
  );
}

await main();
