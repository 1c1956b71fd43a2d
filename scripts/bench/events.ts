// Event store benchmark (issue 2). Prints one JSON line:
//  - publish rate: one event per publish() call (its own transaction, WAL + synchronous=NORMAL), beside a raw
//    better-sqlite3 insert loop of the same rows with the same pragmas, in the same run;
//  - GET /events latency over real HTTP for a 100-event page with 1,000,000 stored events and since_id near the
//    head, with and without session_id.
// Usage: node --import tsx scripts/bench/events.ts [--events 1000000] [--rounds 5]
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "undici";
import { openDatabase } from "../../server/db/database.ts";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { median, percentile } from "./stats.ts";

const { values } = parseArgs({
  options: { events: { type: "string", default: "1000000" }, rounds: { type: "string", default: "5" } },
});
const STORED = Number(values.events);
const ROUNDS = Number(values.rounds);
const PUBLISHES_PER_ROUND = 20_000;
const SESSIONS = 1000;
const TOKEN = "bench-token";

function partial(i: number) {
  return {
    type: "partial",
    session_id: `session-${i % SESSIONS}`,
    request_id: `request-${i % SESSIONS}`,
    message: { role: "assistant", content: `token ${i} of a streamed reply` },
  };
}

/** Stored history: finals, which compaction keeps, so a 100-event page really carries 100 events. */
function final(i: number) {
  return {
    type: "final",
    session_id: `session-${i % SESSIONS}`,
    request_id: `request-${i % SESSIONS}`,
    messages: [{ role: "assistant", content: `reply ${i}: a short answer of typical length` }],
  };
}

function rawInsertRate(dir: string): number {
  const db = openDatabase(join(dir, "raw.sqlite"));
  const insert = db.prepare(
    "INSERT INTO events (type, session_id, request_id, created_at, body) VALUES (?, ?, ?, ?, ?)",
  );
  const start = process.hrtime.bigint();
  for (let i = 0; i < PUBLISHES_PER_ROUND; i++) {
    const e = partial(i);
    insert.run(e.type, e.session_id, e.request_id, Date.now(), JSON.stringify(e));
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  db.close();
  return PUBLISHES_PER_ROUND / seconds;
}

async function main() {
  const dir = tempDir("bench-events-");
  const runtime = createRuntime({
    config: parseConfig({ events: { retention_max_events: STORED * 2 } }),
    dataDir: dir,
    adminToken: TOKEN,
  });
  const { events, transactor } = runtime.ctx;

  const publishRates: number[] = [];
  const rawRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rmSync(join(dir, "raw.sqlite"), { force: true });
    rawRates.push(rawInsertRate(dir));
    const start = process.hrtime.bigint();
    for (let i = 0; i < PUBLISHES_PER_ROUND; i++) events.publish(partial(i));
    publishRates.push(PUBLISHES_PER_ROUND / (Number(process.hrtime.bigint() - start) / 1e9));
  }

  // Fill to STORED events in large transactions (group commit) before measuring reads.
  for (let i = events.latestId; i < STORED; i += 10_000) {
    const upTo = Math.min(STORED, i + 10_000);
    transactor.run(() => {
      for (let j = i; j < upTo; j++) events.publish(final(j));
    });
  }

  const base = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const client = new Client(base, { pipelining: 1 });
  const head = events.latestId;
  async function latencies(path: () => string, expectCount: number): Promise<number[]> {
    const samples: number[] = [];
    for (let i = 0; i < 1200; i++) {
      const start = process.hrtime.bigint();
      const res = await client.request({ method: "GET", path: path(), headers: { authorization: `Bearer ${TOKEN}` } });
      const body = (await res.body.json()) as { events: unknown[] };
      if (i >= 200) samples.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (body.events.length !== expectCount)
        throw new Error(`expected ${expectCount} events, got ${body.events.length}`);
    }
    return samples;
  }
  const plain = await latencies(() => `/events?since_id=${head - 100}&limit=100`, 100);
  const session = "session-7";
  const bySession = await latencies(
    () => `/events?since_id=${head - 100 * SESSIONS}&session_id=${session}&limit=100`,
    100,
  );
  await client.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });

  console.log(
    JSON.stringify({
      bench: "events",
      stored_events: STORED,
      publish_per_s_median: Math.round(median(publishRates)),
      raw_insert_per_s_median: Math.round(median(rawRates)),
      publish_vs_raw: +(median(publishRates) / median(rawRates)).toFixed(3),
      get_events_100_ms: { p50: +percentile(plain, 50).toFixed(3), p99: +percentile(plain, 99).toFixed(3) },
      get_events_100_by_session_ms: {
        p50: +percentile(bySession, 50).toFixed(3),
        p99: +percentile(bySession, 99).toFixed(3),
      },
      durability: "WAL, synchronous=NORMAL",
    }),
  );
}

await main();
