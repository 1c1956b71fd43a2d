// History benchmark, the server's part (docs/benchmarks.md "History"; issue 35 item 3). Stores --chats chats holding
// --messages messages in all, one of them --long messages long, then reads over real HTTP:
//  - list_page: GET /sessions?limit=50, the first page the app asks for; baseline list_whole: GET /sessions, the
//    whole list as the app read it before paging (same run, same data);
//  - messages_page: GET /sessions/{long}?messages_limit=100, the long chat's last 100; baseline session_whole:
//    GET /sessions/{long}, the whole chat.
// Prints one JSON line: p50/p99 wall time in ms of each, the ratios of the p99s to their baselines, the server's RSS
// with the data loaded, the seed time and the 1-minute load average. The app's part (cold open and the long chat in
// Chromium throttled 4x) is not measured here yet.
// Usage: node --import tsx scripts/bench/history.ts [--chats 10000] [--messages 200000] [--long 5000] [--reads 300]
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Client } from "undici";
import type { Message } from "../../client/wire/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { percentile } from "./stats.ts";

const { values } = parseArgs({
  options: {
    chats: { type: "string", default: "10000" },
    messages: { type: "string", default: "200000" },
    long: { type: "string", default: "5000" },
    reads: { type: "string", default: "300" },
  },
});
const CHATS = Number(values.chats);
const MESSAGES = Number(values.messages);
const LONG = Number(values.long);
const READS = Number(values.reads);
const TOKEN = "bench-token";

const round2 = (n: number) => Math.round(n * 100) / 100;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

function messagesOf(count: number, chat: number): Message[] {
  return Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: `Chat ${chat}, message ${i}: ${"a sentence of an ordinary length about everyday things. ".repeat(3)}`,
    metadata: {},
  }));
}

/** Stores the chats: the long one first, the other messages spread evenly over the rest. */
function seed(runtime: ReturnType<typeof createRuntime>): string {
  const { sessions } = runtime.ctx;
  const perChat = Math.floor((MESSAGES - LONG) / Math.max(1, CHATS - 1));
  let longId = "";
  for (let chat = 0; chat < CHATS; chat++) {
    const id = sessions.create().id;
    if (chat === 0) longId = id;
    const messages = messagesOf(chat === 0 ? LONG : perChat, chat);
    sessions.change(id, (session) => ({
      next: { ...session, title: `Chat ${chat}`, pinned: chat % 500 === 1, messages },
      events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
      result: () => undefined,
    }));
  }
  return longId;
}

async function timeReads(client: Client, path: string): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < READS + 20; i++) {
    const start = process.hrtime.bigint();
    const res = await client.request({ method: "GET", path, headers: { authorization: `Bearer ${TOKEN}` } });
    await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
    if (i >= 20) samples.push(ms(start)); // the first 20 warm the caches
  }
  return samples;
}

const figures = (name: string, samples: number[]) => ({
  [`${name}_p50_ms`]: round2(percentile(samples, 50)),
  [`${name}_p99_ms`]: round2(percentile(samples, 99)),
});

const dir = tempDir("bench-history-");
const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: TOKEN });
try {
  const start = process.hrtime.bigint();
  const longId = seed(runtime);
  const seedMs = ms(start);
  const base = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const client = new Client(base, { pipelining: 1 });
  const listPage = await timeReads(client, "/sessions?limit=50");
  const listWhole = await timeReads(client, "/sessions");
  const messagesPage = await timeReads(client, `/sessions/${longId}?messages_limit=100`);
  const sessionWhole = await timeReads(client, `/sessions/${longId}`);
  await client.close();
  const p99 = (samples: number[]) => percentile(samples, 99);
  console.log(
    JSON.stringify({
      bench: "history",
      chats: CHATS,
      messages: MESSAGES,
      long_chat: LONG,
      reads: READS,
      seed_ms: Math.round(seedMs),
      load_average: round2(loadavg()[0]!),
      server_rss_mb: Math.round(process.memoryUsage().rss / 1e6),
      ...figures("list_page", listPage),
      ...figures("list_whole", listWhole),
      list_page_p99_vs_whole: round2(p99(listPage) / p99(listWhole)),
      ...figures("messages_page", messagesPage),
      ...figures("session_whole", sessionWhole),
      messages_page_p99_vs_whole: round2(p99(messagesPage) / p99(sessionWhole)),
    }),
  );
} finally {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
