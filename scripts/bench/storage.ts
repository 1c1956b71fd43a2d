// Session storage benchmark (issue 11 item 15). Prints one JSON line:
//  - growth_ratio: bytes DATA_DIR grew by (after the server closed, WAL folded in) over the content bytes appended:
//    APPENDS appends of CONTENT_KIB KiB each to one session over real HTTP, then as many to another session
//    through SessionService.append in process;
//  - append_time_ratio (HTTP) and service_append_time_ratio (in process): median time of the last 3 appends over
//    the first 3 (the baseline of the same run); 1 means an append costs the same whatever the session's length.
//    The HTTP answer carries the whole session ({session, message}), so its serialization grows with it; the
//    in-process figure is the storage's own cost.
// Each figure is the median of --rounds rounds, each on a fresh DATA_DIR.
// Usage: node --import tsx scripts/bench/storage.ts [--appends 20] [--kib 256] [--rounds 3]
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "undici";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { benchOptions } from "./options.ts";
import { median } from "./stats.ts";

const options = benchOptions({ appends: 20, kib: 256, rounds: 3 });
const { appends: APPENDS, rounds: ROUNDS } = options;
const CONTENT_BYTES = options.kib * 1024;
const TOKEN = "bench-token";
const EDGE = 3;

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? dirBytes(path) : statSync(path).size;
  }
  return total;
}

interface Round {
  growthRatio: number;
  http: number[];
  service: number[];
}

function contentOf(i: number): string {
  // Distinct content each time, so nothing could be shared by accident.
  return `${i}:`.padEnd(CONTENT_BYTES, String.fromCharCode(97 + (i % 26)));
}

function timed(times: number[], start: bigint): void {
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}

async function round(): Promise<Round> {
  const dir = tempDir("bench-storage-");
  const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: TOKEN });
  const base = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const client = new Client(base, { pipelining: 1 });
  const call = async (method: "POST", path: string, body: unknown) => {
    const res = await client.request({
      method,
      path,
      body: JSON.stringify(body),
      headers: { "authorization": `Bearer ${TOKEN}`, "content-type": "application/json" },
    });
    const json = (await res.body.json()) as { session?: { id: string } };
    if (res.statusCode >= 300)
      throw new Error(`${path} answered ${res.statusCode}: ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  };
  const sessionId = (await call("POST", "/sessions", {})).session!.id;
  const before = dirBytes(dir);
  const http: number[] = [];
  for (let i = 0; i < APPENDS; i++) {
    const start = process.hrtime.bigint();
    await call("POST", `/sessions/${sessionId}/messages`, { role: "user", content: contentOf(i) });
    timed(http, start);
  }
  const service: number[] = [];
  const other = runtime.ctx.sessions.create().id;
  for (let i = 0; i < APPENDS; i++) {
    const start = process.hrtime.bigint();
    runtime.ctx.sessions.append(other, { role: "user", content: contentOf(APPENDS + i) });
    timed(service, start);
  }
  await client.close();
  await runtime.close();
  const growth = dirBytes(dir) - before;
  rmSync(dir, { recursive: true, force: true });
  return { growthRatio: growth / (2 * APPENDS * CONTENT_BYTES), http, service };
}

/** Medians over rounds of the first and last appends' median times, and of their ratio. */
function flatness(rounds: Round[], pick: (r: Round) => number[]) {
  const first = rounds.map((r) => median(pick(r).slice(0, EDGE)));
  const last = rounds.map((r) => median(pick(r).slice(-EDGE)));
  const ratios = first.map((f, i) => last[i]! / f);
  return {
    first_ms: +median(first).toFixed(1),
    last_ms: +median(last).toFixed(1),
    ratio: +median(ratios).toFixed(2),
    ratios: ratios.map((r) => +r.toFixed(2)),
  };
}

async function main() {
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
  const http = flatness(rounds, (r) => r.http);
  const service = flatness(rounds, (r) => r.service);
  console.log(
    JSON.stringify({
      bench: "storage",
      appends: APPENDS,
      content_kib: CONTENT_BYTES / 1024,
      rounds: ROUNDS,
      growth_ratio: +median(rounds.map((r) => r.growthRatio)).toFixed(2),
      growth_ratios: rounds.map((r) => +r.growthRatio.toFixed(2)),
      append_time_ratio: http.ratio,
      append_http_ms: http,
      service_append_time_ratio: service.ratio,
      append_service_ms: service,
    }),
  );
}

await main();
