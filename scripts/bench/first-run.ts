// How long a new user waits (docs/benchmarks.md "First run"): from spawning `npm start`'s supervisor
// (scripts/start.ts, the app already built) on an empty DATA_DIR to (a) the server answering GET /health and (b) the
// first-run link being ready (written to pair-link.txt: not a terminal here; on a terminal it is printed at the same
// point). Baseline in the same run: `npm run server` alone (server/main.ts) to its first answer. Each round gets
// fresh ports and DATA_DIR; prints one JSON line of medians.
//   node --import tsx scripts/bench/first-run.ts [--rounds 5]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./stats.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const roundsAt = process.argv.indexOf("--rounds");
const rounds = roundsAt > 0 ? Number(process.argv[roundsAt + 1]) : 5;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function firstAnswer(url: string, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Spawns `entry`, returns ms to the server's first answer and to `line` in the output (when given). */
async function round(
  entry: string,
  line: RegExp | undefined,
): Promise<{ answerMs: number; lineMs: number | undefined }> {
  const dir = mkdtempSync(join(tmpdir(), "bench-first-run-"));
  const port = await freePort();
  const env = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    BRIDGE_PORT: String(await freePort()),
    DATA_DIR: join(dir, "data"),
    CONFIG: "",
    ADMIN_TOKEN: "",
  };
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let lineMs: number | undefined;
  const lineSeen = new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (line && lineMs === undefined && line.test(output)) {
        lineMs = performance.now() - started;
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    if (!line) resolve();
  });
  const stop = new AbortController();
  child.once("exit", () => stop.abort());
  await firstAnswer(`http://127.0.0.1:${port}/health`, stop.signal);
  const answerMs = performance.now() - started;
  await lineSeen;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  rmSync(dir, { recursive: true, force: true });
  return { answerMs, lineMs };
}

const start: Array<{ answerMs: number; lineMs: number | undefined }> = [];
const alone: number[] = [];
for (let i = 0; i < rounds; i++) {
  // Interleaved, so both see the same load.
  alone.push((await round("server/main.ts", undefined)).answerMs);
  start.push(await round("scripts/start.ts", /pairing link written|^Open http/m));
}
const round1 = (n: number) => Math.round(n);
process.stdout.write(
  JSON.stringify({
    bench: "first-run",
    rounds,
    npm_start_to_server_answer_ms: round1(median(start.map((r) => r.answerMs))),
    npm_start_to_link_ms: round1(median(start.map((r) => r.lineMs!))),
    baseline_server_alone_to_answer_ms: round1(median(alone)),
    samples: {
      start_answer: start.map((r) => round1(r.answerMs)),
      start_link: start.map((r) => round1(r.lineMs!)),
      server_alone: alone.map(round1),
    },
  }) + "\n",
);
