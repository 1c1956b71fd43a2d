// Search benchmark (docs/search.md, docs/benchmarks.md "Search"). Stores --sessions sessions of --messages messages
// each (100,000 by default; text drawn from a Zipf-distributed vocabulary of pseudo-words, so a few words are in most
// messages and most words in few), lets the indexer catch up, then runs --queries queries of one to three words
// (each word drawn uniformly from the vocabulary, a third of them cut to a prefix) three ways:
//  - fts_http: GET /search over real HTTP (limit 20), the route's whole cost;
//  - fts_service: SearchService.search in process;
//  - like_scan (the baseline, same run, same messages): `body LIKE '%w%'` for each word over the stored message bodies
//    (message_bodies), limit 20, unranked (a LIKE scan cannot rank without reading every match, so this is the
//    cheapest it can be).
// Prints one JSON line: p50/p99 wall time and p99 CPU time (this process's, which includes the HTTP client's for
// fts_http) in ms of each, the 1-minute load average, the stored message count, the seed and index times.
// Usage: node --import tsx scripts/bench/search.ts [--sessions 1000] [--messages 100] [--queries 500]
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { Client } from "undici";
import type { Message } from "../../client/wire/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime } from "../../server/runtime.ts";
import { seededRandom } from "../../test/support/seeded-random.ts";
import { tempDir } from "../../test/support/server.ts";
import { benchOptions } from "./options.ts";
import { percentile } from "./stats.ts";

const {
  sessions: SESSIONS,
  messages: MESSAGES,
  queries: QUERIES,
} = benchOptions({
  sessions: 1000,
  messages: 100,
  queries: 500,
});
const VOCABULARY = 20_000;
const WORDS_PER_MESSAGE = 40;
const TOKEN = "bench-token";

// Seeded, so every run stores the same text.
const rand = seededRandom(42);
const SYLLABLES = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "va", "zu", "shi", "ren", "gor", "bel", "tin"];
const vocabulary = Array.from({ length: VOCABULARY }, (_, i) => {
  let word = "";
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return word;
});
// Zipf (s = 1) over the vocabulary's ranks, by inverse transform on the cumulative weights.
const cumulative: number[] = [];
vocabulary.reduce((sum, _, rank) => (cumulative[rank] = sum + 1 / (rank + 1)), 0);
const zipfWord = () => {
  const target = rand() * cumulative[cumulative.length - 1]!;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (cumulative[mid]! < target) low = mid + 1;
    else high = mid;
  }
  return vocabulary[low]!;
};
const text = () => Array.from({ length: WORDS_PER_MESSAGE }, zipfWord).join(" ");

function queryWords(): string[] {
  const count = 1 + Math.floor(rand() * 3);
  return Array.from({ length: count }, () => {
    const word = vocabulary[Math.floor(rand() * VOCABULARY)]!;
    return rand() < 1 / 3 ? word.slice(0, Math.max(3, word.length - 2)) : word;
  });
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const round2 = (n: number) => Math.round(n * 100) / 100;

/** Wall time and this process's CPU time of one query: on a shared machine the CPU time is the steadier figure. */
interface Sample {
  wall: number;
  cpu: number;
}

function measure<T>(samples: Sample[], work: () => T): T {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const result = work();
  const used = process.cpuUsage(cpu);
  samples.push({ wall: ms(start), cpu: (used.user + used.system) / 1000 });
  return result;
}

async function measureAsync<T>(samples: Sample[], work: () => Promise<T>): Promise<T> {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const result = await work();
  const used = process.cpuUsage(cpu);
  samples.push({ wall: ms(start), cpu: (used.user + used.system) / 1000 });
  return result;
}

function figures(name: string, samples: Sample[]): Record<string, number> {
  const wall = samples.map((s) => s.wall);
  const cpu = samples.map((s) => s.cpu);
  return {
    [`${name}_p50_ms`]: round2(percentile(wall, 50)),
    [`${name}_p99_ms`]: round2(percentile(wall, 99)),
    [`${name}_cpu_p99_ms`]: round2(percentile(cpu, 99)),
  };
}

const dir = tempDir("bench-search-");
const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: TOKEN });
try {
  const { sessions, search, db } = runtime.ctx;
  const owner = runtime.ctx.personStore.actingAdmin().id; // whose chats sessions.create() makes
  let start = process.hrtime.bigint();
  for (let s = 0; s < SESSIONS; s++) {
    const id = sessions.create().id;
    const messages: Message[] = Array.from({ length: MESSAGES }, (_, i) => ({
      role: i % 2 === 0 ? "user" : "assistant",
      content: text(),
      metadata: {},
    }));
    sessions.change(id, (session) => ({
      next: { ...session, messages },
      events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
      result: () => undefined,
    }));
  }
  const seedMs = ms(start);
  start = process.hrtime.bigint();
  await search.search("warmup", 1, owner); // catches the index up with everything stored
  const indexMs = ms(start);
  const stored = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM search_docs").get()!.n;

  const queries = Array.from({ length: QUERIES }, queryWords);
  const like = db.prepare("SELECT id FROM message_bodies WHERE body LIKE ? LIMIT 20");
  const like2 = db.prepare("SELECT id FROM message_bodies WHERE body LIKE ? AND body LIKE ? LIMIT 20");
  const like3 = db.prepare("SELECT id FROM message_bodies WHERE body LIKE ? AND body LIKE ? AND body LIKE ? LIMIT 20");
  const likeStatements = [like, like2, like3];

  const base = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const client = new Client(base, { pipelining: 1 });
  const http: Sample[] = [];
  const service: Sample[] = [];
  const scan: Sample[] = [];
  let hits = 0;
  // One unmeasured pass first, so every way is measured on a warm page cache; then each way runs the whole list on
  // its own, so none reads pages another has just warmed for the same query.
  for (const words of queries) await search.search(words.join(" "), 20, owner);
  for (const words of queries) {
    const path = `/search?q=${encodeURIComponent(words.join(" "))}&limit=20`;
    const answer = await measureAsync(http, async () => {
      const res = await client.request({ method: "GET", path, headers: { authorization: `Bearer ${TOKEN}` } });
      return { status: res.statusCode, body: (await res.body.json()) as { results: unknown[] } };
    });
    if (answer.status !== 200) throw new Error(`search answered ${answer.status}`);
    hits += answer.body.results.length > 0 ? 1 : 0;
  }
  for (const words of queries) await measureAsync(service, () => search.search(words.join(" "), 20, owner));
  for (const words of queries)
    measure(scan, () => likeStatements[words.length - 1]!.all(...words.map((w) => `%${w}%`)));
  await client.close();
  console.log(
    JSON.stringify({
      bench: "search",
      stored_messages: stored,
      queries: QUERIES,
      queries_with_results: hits,
      seed_ms: Math.round(seedMs),
      index_ms: Math.round(indexMs),
      load_average: round2(loadavg()[0]!),
      ...figures("fts_http", http),
      ...figures("fts_service", service),
      ...figures("like_scan", scan),
    }),
  );
} finally {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
