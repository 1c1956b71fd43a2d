// History benchmark, the server's part (docs/benchmarks.md "History"; issue 35 item 3). A server child
// (history-server.ts) stores --chats chats holding --messages messages in all, one of them --long messages long, with
// --devices devices of its person live (each holding a GET /events long-poll); then, over real HTTP:
//  - list_page: GET /sessions?limit=50, the first page and four deeper ones (their cursors walked from the first);
//  - messages_page: GET /sessions/{long}?messages_limit=100&messages_before=..., pages at the end, middle and start;
//  - search: GET /search?q=...&limit=20, one- and two-word queries of the messages' vocabulary;
//  - the server's RSS with the data loaded and the devices live.
// Baselines in the same run: the same reads of a server holding 100 chats (2,000 messages; its long chat 100 messages
// long, so a page is the whole chat), and on the big server the whole list (GET /sessions) and the whole long chat.
// BENCH_RUNS runs (5); prints ONE JSON line of medians over the runs: p50/p99 wall time in ms, the ratios of the p99s
// to their baselines, the RSS, the seed and index times of the big server and the 1-minute load average.
// Usage: node --import tsx scripts/bench/history.ts [--chats 10000] [--messages 200000] [--long 5000] [--reads 300]
//        [--devices 50]
import { loadavg } from "node:os";
import {
  holdLongPolls,
  p50p99,
  round2,
  listPaths,
  startHistoryServer,
  timeReads,
  TOKEN,
  type HistoryServer,
} from "./history-driver.ts";
import { queriesOf } from "./history-words.ts";
import { benchOptions } from "./options.ts";
import { medianOfRuns, percentile } from "./stats.ts";

const options = benchOptions({ chats: 10000, messages: 200000, long: 5000, reads: 300, devices: 50 });
const { chats: CHATS, messages: MESSAGES, long: LONG, reads: READS, devices: DEVICES } = options;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SMALL_CHATS = 100;
const PER_CHAT = Math.floor((MESSAGES - LONG) / Math.max(1, CHATS - 1));

/** Pages of 100 of the long chat: its last, one in its middle, its first. */
function messagePaths(server: HistoryServer, length: number): string[] {
  const base = `/sessions/${server.long_id}?messages_limit=100`;
  return [base, `${base}&messages_before=${Math.floor(length / 2)}`, `${base}&messages_before=100`];
}

const searchPaths = queriesOf(50).map((q) => `/search?q=${encodeURIComponent(q)}&limit=20`);

/** The reads every server gets: a list page, a message page, a search. */
async function readsOf(server: HistoryServer, length: number) {
  return {
    list: await timeReads(server.client, await listPaths(server), READS),
    messages: await timeReads(server.client, messagePaths(server, length), READS),
    search: await timeReads(server.client, searchPaths, READS),
  };
}

async function oneRun(): Promise<Record<string, number>> {
  const small = await startHistoryServer({ people: 1, chats: SMALL_CHATS, messages: 20, long: 100, devices: 0 });
  const baseline = await readsOf(small, 100);
  const smallRss = await small.rssMb().finally(() => small.stop());
  const big = await startHistoryServer({ people: 1, chats: CHATS, messages: PER_CHAT, long: LONG, devices: DEVICES });
  const endPolls = holdLongPolls(big);
  try {
    const measured = await readsOf(big, LONG);
    const listWhole = await timeReads(big.client, ["/sessions"], Math.min(READS, 50));
    const sessionWhole = await timeReads(big.client, [`/sessions/${big.long_id}`], Math.min(READS, 50));
    const p99 = (samples: number[]) => percentile(samples, 99);
    return {
      seed_ms: big.seed_ms,
      index_ms: big.index_ms,
      server_rss_mb: await big.rssMb(),
      server_rss_mb_100_chats: smallRss,
      ...p50p99("list_page", measured.list),
      ...p50p99("list_page_100_chats", baseline.list),
      list_page_p99_vs_100_chats: round2(p99(measured.list) / p99(baseline.list)),
      ...p50p99("list_whole", listWhole),
      ...p50p99("messages_page", measured.messages),
      ...p50p99("messages_page_100_message_chat", baseline.messages),
      messages_page_p99_vs_100_message_chat: round2(p99(measured.messages) / p99(baseline.messages)),
      ...p50p99("session_whole", sessionWhole),
      ...p50p99("search", measured.search),
      ...p50p99("search_100_chats", baseline.search),
      search_p99_vs_100_chats: round2(p99(measured.search) / p99(baseline.search)),
      load_average: round2(loadavg()[0]!),
    };
  } finally {
    await endPolls();
    await big.stop();
  }
}

const medians = await medianOfRuns(RUNS, oneRun);
console.log(
  JSON.stringify({
    bench: "history",
    runs: RUNS,
    chats: CHATS,
    messages: MESSAGES,
    long_chat: LONG,
    devices_live: DEVICES,
    reads: READS,
    ...medians,
  }),
);
