// People's list and search (docs/benchmarks.md "History with people"; issue 30, "How it is checked"): a person owning
// --chats chats among --people people owning as many each (100,000 chats of 10 people by default), against a server
// holding only that person's chats (the baseline, same run): GET /sessions?limit=50 (the first page and four deeper
// ones) and GET /search (one- and two-word queries of the messages' vocabulary), as that person (the Owner, whom the
// admin token acts as). Each server is a child of its own (history-server.ts); both run at once and are read in turn,
// a read of one then the same read of the other (timeReadsPaired), so a drift of the machine's load weighs on both.
// BENCH_SEED_CACHE=<dir> keeps the seeded data folders between runs (history-server.ts).
// BENCH_RUNS runs (5); prints ONE JSON line of medians over the runs: p50/p99 wall time in ms of each read on both
// servers and the ratios of the p99s (the bound: 1.2), the seed times and the 1-minute load average.
// Usage: node --import tsx scripts/bench/history-people.ts [--people 10] [--chats 10000] [--messages 4] [--reads 300]
import { loadavg } from "node:os";
import { p50p99, round2, listPaths, startHistoryServer, timeReadsPaired } from "./history-driver.ts";
import { queriesOf } from "./history-words.ts";
import { benchOptions } from "./options.ts";
import { medianOfRuns, percentile } from "./stats.ts";

const options = benchOptions({ people: 10, chats: 10000, messages: 4, reads: 300 });
const { people: PEOPLE, chats: CHATS, messages: MESSAGES, reads: READS } = options;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const searchPaths = queriesOf(50).map((q) => `/search?q=${encodeURIComponent(q)}&limit=20`);

/** Both servers started (seeded or copied, one after the other), then read in turn; both stopped after. */
async function measure() {
  const shape = (people: number) => ({ people, chats: CHATS, messages: MESSAGES, long: MESSAGES, devices: 0 });
  const alone = await startHistoryServer(shape(1));
  const among = await startHistoryServer(shape(PEOPLE)).catch(async (error: unknown) => {
    await alone.stop();
    throw error;
  });
  try {
    const [listAlone, listAmong] = await timeReadsPaired(
      { client: alone.client, paths: await listPaths(alone) },
      { client: among.client, paths: await listPaths(among) },
      READS,
    );
    const [searchAlone, searchAmong] = await timeReadsPaired(
      { client: alone.client, paths: searchPaths },
      { client: among.client, paths: searchPaths },
      READS,
    );
    return {
      alone: { seed_ms: alone.seed_ms, list: listAlone, search: searchAlone },
      among: { seed_ms: among.seed_ms, list: listAmong, search: searchAmong },
    };
  } finally {
    await Promise.all([alone.stop(), among.stop()]);
  }
}

async function oneRun(): Promise<Record<string, number>> {
  const { alone, among } = await measure();
  const p99 = (samples: number[]) => percentile(samples, 99);
  return {
    seed_ms_alone: alone.seed_ms,
    seed_ms_among: among.seed_ms,
    ...p50p99("list_page_among", among.list),
    ...p50p99("list_page_alone", alone.list),
    list_page_p99_among_vs_alone: round2(p99(among.list) / p99(alone.list)),
    ...p50p99("search_among", among.search),
    ...p50p99("search_alone", alone.search),
    search_p99_among_vs_alone: round2(p99(among.search) / p99(alone.search)),
    load_average: round2(loadavg()[0]!),
  };
}

const medians = await medianOfRuns(RUNS, oneRun);
console.log(
  JSON.stringify({
    bench: "history-people",
    runs: RUNS,
    people: PEOPLE,
    chats_each: CHATS,
    messages_per_chat: MESSAGES,
    reads: READS,
    ...medians,
  }),
);
