// History in the app (docs/benchmarks.md "History in the app"; issue 35 items 1 and 2): the built app in headless
// Chromium at 390x844, its CPU throttled 4x through CDP (Emulation.setCPUThrottlingRate, a stand-in for a mid-range
// phone), paired as a device of the Owner of a server child (history-server.ts) holding --people people who each own
// --chats chats: the Owner's hold --messages messages in all, the first of them --long messages long; the others'
// hold --others messages each (they fill the tables; the list is the Owner's). The browser visits once (the service
// worker installed, the whole list walked and cached on the device), then each run opens a new page:
//  - cold open: navigation to the first chat row painted (rows_ms) and to the chat a tap on the first row opens
//    painted (interactive_ms; the tap is a click queued in the page as the row is painted, so it waits for whatever
//    the page does then, and no driver's round trip is counted; tap_ms is the part after the rows); whether the rows
//    were in the page before the app had the server's first list page in hand (rows_before_server: 1 when they were);
//    the locale formatters (Intl) the page made before the rows were painted (formatters_before_rows: the first one
//    sets up the browser's locale data); the main thread's CPU time from the navigation to that painted chat
//    (open_thread_ms, CDP ThreadTime: the work a build does to open, which a loaded machine's stretched wall clock
//    moves less than the times);
//  - long chat: from there, the long chat opened by its route until its last message is painted (long_chat_paint_ms;
//    the main thread's CPU time until the driver reads it, long_chat_thread_ms, takes in what the page does after);
//    then its transcript scrolled up a screen a frame until its first message shows, with every long task of the
//    page meanwhile (PerformanceObserver 'longtask'): the longest (scroll_longest_task_ms) and how many passed 50 ms
//    (scroll_long_tasks_over_50ms), and the main thread's CPU time over the scroll (scroll_thread_ms, CDP ThreadTime:
//    under a loaded machine's stretched wall clock, the work the page did); the frames it took (scroll_frames) and
//    the time from one of its animation frames to the next, at the median and the 90th percentile
//    (scroll_frame_p50_ms, scroll_frame_p90_ms).
// Baseline in the same run: the same measurements against a server of 100 chats (one person, its long chat 100
// messages long), run for run after the big one. Both servers live side by side; the data is seeded once and each
// browser context warmed once, before the runs (neither is part of a run): each run is a new page of the warm context
// (the service worker active, the list cached, as a returning device), measured cold from its navigation.
// --runs N runs (BENCH_RUNS, 5); each run's figures go to stderr as it ends; stdout gets ONE JSON line: the medians
// over the runs, each run's figures (per_run), the seed time and the 1-minute load average at each run.
// BENCH_APP_DIST=<dir>: the servers serve that build of the app instead of app/dist (a baseline build copied aside,
// to compare two builds run for run). BENCH_APP_PROF=<dir>: each run's CPU profile of the page. BENCH_OPEN_ONLY=1:
// no scroll, the runs end with the long chat's open.
// Usage: node --import tsx scripts/bench/history-app.ts [--runs 5] [--people 10] [--chats 10000] [--messages 200000]
//        [--long 5000] [--others 2] [--throttle 4]
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ensureAppBuilt } from "../build-app.ts";
import { launchBrowser, PHONE } from "../../test/app/support/browser.ts";
import { round2, startHistoryServer, type HistoryServer } from "./history-driver.ts";
import { median } from "./stats.ts";

const { values } = parseArgs({
  options: {
    people: { type: "string", default: "10" },
    chats: { type: "string", default: "10000" },
    messages: { type: "string", default: "200000" },
    long: { type: "string", default: "5000" },
    others: { type: "string", default: "2" },
    throttle: { type: "string", default: "4" },
    runs: { type: "string", default: process.env.BENCH_RUNS ?? "5" },
  },
});
const PEOPLE = Number(values.people);
const CHATS = Number(values.chats);
const MESSAGES = Number(values.messages);
const LONG = Number(values.long);
const THROTTLE = Number(values.throttle);
const OTHERS_MESSAGES = Number(values.others);
const RUNS = Number(values.runs);
/** BENCH_OPEN_ONLY=1: each run ends once the long chat is painted (no scroll to its start): quicker, to study the open. */
const OPEN_ONLY = process.env.BENCH_OPEN_ONLY === "1";
const PER_CHAT = Math.floor((MESSAGES - LONG) / Math.max(1, CHATS - 1));
const SMALL = { people: 1, chats: 100, messages: 20, long: 100, devices: 1 };
/** BENCH_APP_PROF=<dir>: each run's CPU profile of the page goes there (open it in Chrome DevTools). */
const PROFILE_DIR = process.env.BENCH_APP_PROF;
/**
 * BENCH_APP_TRACE=<dir>: each run's long tasks of the scroll to the start go there, each beside the long animation
 * frame it fell in (the scripts that ran, their forced layouts, the frame's style, layout and paint), whether an
 * older page's answer came in it, and the answers whose bodies were read in it (`reads`, by path): what each long task
 * was.
 */
const TRACE_DIR = process.env.BENCH_APP_TRACE;
/**
 * BENCH_APP_CHROME_TRACE=<dir>: Chromium's own trace (its timeline: each task's events, scroll, animation frames,
 * layout, paint) of the first BENCH_APP_CHROME_TRACE_MS (8,000) ms of each run's scroll goes there; open it in
 * DevTools' Performance panel. The tracer slows the page: read its proportions, not its times.
 */
const CHROME_TRACE = process.env.BENCH_APP_CHROME_TRACE;
const CHROME_TRACE_MS = Number(process.env.BENCH_APP_CHROME_TRACE_MS ?? 8000);
// Made up front: a run's profile or trace written into a folder that is not there threw at the end of the run.
for (const dir of [PROFILE_DIR, TRACE_DIR, CHROME_TRACE]) if (dir) mkdirSync(dir, { recursive: true });
/** How long any one wait in the page may take. */
const WAIT_MS = 300_000;

/**
 * Runs in the page before the app on every navigation: marks when the first chat row is in a painted frame and when
 * the chat screen's composer first shows after it, and keeps every long task. A string: tsx would wrap a function's
 * inner functions in a helper the page does not have.
 */
const MARKS = `
window.__bench = { rows: undefined, rowsInPage: undefined, chat: undefined, listAnswer: undefined, longtasks: [],
  frames: [], pages: [], reads: [], formatters: 0, formattersAtRows: undefined };
// Every answer's body read, by path, at the moment its text is in hand: the long task it starts in is that answer's.
const readText = Response.prototype.text;
Response.prototype.text = function () {
  const path = new URL(this.url).pathname + new URL(this.url).search;
  return readText.call(this).then((text) => (window.__bench.reads.push({ path, read: performance.now() }), text));
};
// The locale formatters the page makes: the first one sets up the browser's locale data (docs/app.md SU5, SU6).
for (const name of ["DateTimeFormat", "RelativeTimeFormat", "NumberFormat"]) {
  Intl[name] = new Proxy(Intl[name], { construct(target, args) {
    window.__bench.formatters++;
    return Reflect.construct(target, args);
  } });
}
const pageFetch = window.fetch;
window.fetch = (input, init) => {
  const answer = pageFetch(input, init);
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (url.includes("before=")) {
    const asked = performance.now();
    answer.then(() => window.__bench.pages.push({ asked, answered: performance.now() }), () => undefined);
  }
  if (url.includes("/sessions?limit=") && window.__bench.listAnswer === undefined)
    answer.then(() => (window.__bench.listAnswer ??= performance.now()), () => undefined);
  return answer;
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__bench.longtasks.push({ start: entry.startTime, duration: entry.duration });
}).observe({ type: "longtask", buffered: true });
// Long animation frames, with the scripts that ran in them and their forced layouts (BENCH_APP_TRACE reads them).
new PerformanceObserver((list) => {
  for (const frame of list.getEntries())
    window.__bench.frames.push({
      start: frame.startTime,
      duration: frame.duration,
      blocking: frame.blockingDuration,
      render: frame.renderStart ? frame.startTime + frame.duration - frame.renderStart : 0,
      style_layout: frame.styleAndLayoutStart ? frame.startTime + frame.duration - frame.styleAndLayoutStart : 0,
      scripts: frame.scripts.map((script) => ({
        invoker: script.invoker,
        fn: script.sourceFunctionName,
        at: script.sourceURL.split("/").pop() + ":" + script.sourceCharPosition,
        duration: script.duration,
        forced_layout: script.forcedStyleAndLayoutDuration,
      })),
    });
}).observe({ type: "long-animation-frame", buffered: true });
const marks = new MutationObserver(() => {
  const bench = window.__bench;
  const row = document.querySelector(".session-row");
  if (bench.rows === undefined && row) {
    bench.rows = null;
    bench.rowsInPage = performance.now();
    // A tap on the first row as soon as it is painted, queued behind whatever the page is doing then.
    requestAnimationFrame(() => {
      bench.rows = performance.now();
      bench.formattersAtRows = bench.formatters;
      setTimeout(() => document.querySelector(".session-row").click(), 0);
    });
  }
  if (bench.rows && bench.chat === undefined && document.querySelector("#composer")) {
    bench.chat = null;
    requestAnimationFrame(() => (bench.chat = performance.now()));
  }
  if (bench.chat) marks.disconnect();
});
marks.observe(document, { childList: true, subtree: true });
`;

/** The credentials the app keeps in localStorage (client/connection/credentials.ts, webStorage's prefix). */
function credentialsScript(server: HistoryServer): string {
  const credentials = {
    // A bridge that is down: nothing listens there (Chromium refuses port 9 at once, ERR_UNSAFE_PORT), so the app
    // reads events over HTTP from server_url (the client's `polling`) and keeps trying the bridge on the library's
    // reconnect schedule, about once a second for its first 15 s, then every 2.5-5 s. Each failed attempt costs the
    // page 8-25 ms of main thread (CPU 4x: the socket's error and close handlers, the long-poll probe), which can fall
    // inside a timed open; both servers' runs carry it alike. A device of a working install is live on its bridge and
    // makes no such attempt (docs/benchmarks.md "History in the app", the long chat's open).
    bridge_url: "ws://127.0.0.1:9/socket",
    server_id: server.server_id,
    device_id: server.device_ids[0],
    device_token: server.tokens[0],
    server_url: server.url,
  };
  return `localStorage.setItem("chat-relay:credentials", ${JSON.stringify(JSON.stringify(credentials))});`;
}

/** How many chats the device's cache holds (app/src/state/offline-cache.ts, in the library's IndexedDbCache). */
const CACHED_CHATS = `new Promise((resolve) => {
  const open = indexedDB.open("chat-relay-cache");
  open.onerror = () => resolve(0);
  open.onsuccess = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains("sessions")) return resolve((db.close(), 0));
    // The list's manifest names its records with the chats each holds (app/src/state/list-records.ts); a build before
    // them (served by BENCH_APP_DIST) kept the whole list in one record.
    const store = db.transaction("sessions").objectStore("sessions");
    const read = store.get("sessions_records");
    const legacy = store.get("sessions");
    const chats = (manifest) => (manifest?.records ?? []).reduce((sum, record) => sum + record.chats, 0);
    legacy.onsuccess = () =>
      resolve((db.close(), Math.max(chats(read.result), Array.isArray(legacy.result) ? legacy.result.length : 0)));
    legacy.onerror = () => resolve((db.close(), 0));
  };
})`;

/** The page's marks (MARKS), as a predicate run in the page reads them. */
type BenchWindow = { __bench: { chat?: number } };

/** A context that visited once: service worker active and controlling, the whole list walked and cached. */
async function warmContext(browser: Browser, server: HistoryServer, chats: number): Promise<BrowserContext> {
  // The app runs under its own Content-Security-Policy, as people run it (docs/security.md "The app's page"): no
  // eval in the page, so zod parses without its compiled fast path. Hence no string predicate in waitForFunction
  // (Playwright compiles one in the page with new Function, which the policy refuses); page.evaluate is not refused.
  const context = await browser.newContext({ viewport: PHONE, hasTouch: true });
  await context.addInitScript(credentialsScript(server));
  await context.addInitScript(MARKS);
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForFunction(() => navigator.serviceWorker.ready.then(() => true), undefined, { timeout: WAIT_MS });
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: WAIT_MS });
  const cachedAll = `${CACHED_CHATS}.then((count) => count >= ${chats})`;
  for (const started = Date.now(); !(await page.evaluate(cachedAll)); await sleep(500))
    if (Date.now() - started > WAIT_MS) throw new Error(`the device's cache never held the ${chats} chats`);
  await page.close();
  return context;
}

interface ThrottledPage {
  page: Page;
  /** The page's main thread's CPU time so far (CDP Performance ThreadTime), in ms: what the page did, whatever the
   *  machine's load did to the wall clock. */
  threadMs(): Promise<number>;
  stop(): Promise<void>;
}

/** A new page of the context with its CPU throttled; with BENCH_APP_PROF, its CPU profiled until `stop`. */
async function throttledPage(context: BrowserContext, label: string): Promise<ThrottledPage> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
  await cdp.send("Performance.enable");
  const threadMs = async () => {
    const { metrics } = await cdp.send("Performance.getMetrics");
    return 1000 * (metrics.find((metric) => metric.name === "ThreadTime")?.value ?? Number.NaN);
  };
  if (!PROFILE_DIR) return { page, threadMs, stop: async () => undefined };
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  return {
    page,
    threadMs,
    async stop() {
      const { profile } = await cdp.send("Profiler.stop");
      writeFileSync(join(PROFILE_DIR, `${label}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    },
  };
}

/** Navigation to the first row painted, and to the chat a tap on it opened; whether the rows beat the server. */
async function coldOpen(page: Page, server: HistoryServer) {
  await page.goto(server.url);
  await page
    .waitForFunction(() => typeof (window as unknown as BenchWindow).__bench.chat === "number", undefined, {
      timeout: WAIT_MS,
    })
    .catch(async (error: unknown) => {
      const state = await page.evaluate("JSON.stringify({ bench: window.__bench, hash: location.hash })");
      throw new Error(`the cold open did not end: ${state} ${(await page.locator("body").innerText()).slice(0, 300)}`, {
        cause: error,
      });
    });
  return page.evaluate(() => {
    type Marks = { rows: number; rowsInPage: number; chat: number; listAnswer?: number; formattersAtRows: number };
    const bench = (window as unknown as { __bench: Marks }).__bench;
    const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    return {
      document_ms: navigation.responseEnd,
      script_done_ms: navigation.domContentLoadedEventEnd,
      rows_ms: bench.rows,
      interactive_ms: bench.chat,
      tap_ms: bench.chat - bench.rows,
      rows_before_server: bench.listAnswer === undefined || bench.listAnswer > bench.rowsInPage ? 1 : 0,
      formatters_before_rows: bench.formattersAtRows,
    };
  });
}

/** The long chat opened by its route: ms until its last message is in a painted frame. */
function openLongChat(page: Page, server: HistoryServer, length: number): Promise<number> {
  return page.evaluate(`new Promise((resolve) => {
    const start = performance.now();
    const last = ${JSON.stringify(`, message ${length - 1}:`)};
    const shown = () => Array.from(document.querySelectorAll("article")).some((a) => a.textContent.includes(last));
    const watch = new MutationObserver(() => {
      if (!shown()) return;
      watch.disconnect();
      requestAnimationFrame(() => resolve(performance.now() - start));
    });
    watch.observe(document.body, { childList: true, subtree: true, characterData: true });
    location.hash = ${JSON.stringify(`#/s/${server.long_id}`)};
  })`);
}

interface ScrollFigures {
  scroll_to_start_ms: number;
  scroll_longest_task_ms: number;
  scroll_long_tasks_over_50ms: number;
  scroll_frames: number;
  scroll_frame_p50_ms: number;
  scroll_frame_p90_ms: number;
}

/**
 * Scrolls the transcript up a screen a frame (a fast reader's fling, older pages read as it nears their top) until the
 * chat's first message shows; the page's long tasks meanwhile.
 */
function scrollToStart(page: Page): Promise<ScrollFigures> {
  return page.evaluate(`(async () => {
    const log = document.querySelector('[role="log"][aria-label="Messages"]');
    const first = () => Array.from(document.querySelectorAll("article")).some((a) => a.textContent.includes(", message 0:"));
    const start = performance.now();
    const frames = [];
    let frameStart = start;
    while (!first()) {
      if (performance.now() - start > ${WAIT_MS}) throw new Error("the long chat's first message never showed");
      log.scrollTop = Math.max(0, log.scrollTop - log.clientHeight);
      await new Promise((resolve) => requestAnimationFrame(resolve));
      const now = performance.now();
      frames.push(now - frameStart);
      frameStart = now;
    }
    const tasks = window.__bench.longtasks.filter((task) => task.start >= start).map((task) => task.duration);
    const sorted = frames.sort((a, b) => a - b);
    const at = (share) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
    return {
      scroll_frames: sorted.length,
      scroll_frame_p50_ms: at(0.5),
      scroll_frame_p90_ms: at(0.9),
      scroll_to_start_ms: performance.now() - start,
      scroll_longest_task_ms: Math.max(0, ...tasks),
      scroll_long_tasks_over_50ms: tasks.filter((duration) => duration > 50).length,
    };
  })()`);
}

async function measure(context: BrowserContext, server: HistoryServer, length: number, label: string) {
  const { page, stop, threadMs } = await throttledPage(context, label);
  try {
    const threadAtStart = await threadMs();
    const open = await coldOpen(page, server);
    const open_thread_ms = (await threadMs()) - threadAtStart;
    const threadBeforeLong = await threadMs();
    const long_chat_paint_ms = await openLongChat(page, server, length);
    const long_chat_thread_ms = (await threadMs()) - threadBeforeLong;
    const opened = { ...open, open_thread_ms, long_chat_paint_ms, long_chat_thread_ms };
    if (OPEN_ONLY) return (await stop(), opened);
    const began = await page.evaluate(() => performance.now());
    const threadBefore = await threadMs();
    // Its failure is told once the scroll ends, not left as a rejection while the scroll runs.
    const chromeTrace = CHROME_TRACE
      ? traceFor(context, page, label).then(
          () => undefined,
          (error: unknown) => error,
        )
      : undefined;
    const scrolled = await scrollToStart(page);
    const scroll_thread_ms = (await threadMs()) - threadBefore;
    const traceError = await chromeTrace;
    if (traceError !== undefined) throw new Error("Chromium's trace failed", { cause: traceError });
    await stop();
    if (TRACE_DIR) await writeTrace(page, began, label);
    return { ...opened, ...scrolled, scroll_thread_ms };
  } finally {
    await page.close();
  }
}

/** Chromium's trace of the page's next CHROME_TRACE_MS, written to CHROME_TRACE. */
async function traceFor(context: BrowserContext, page: Page, label: string): Promise<void> {
  const browser = context.browser()!;
  const categories = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "toplevel"];
  await browser.startTracing(page, { path: join(CHROME_TRACE!, `${label}-${Date.now()}.json`), categories });
  await new Promise((resolve) => setTimeout(resolve, CHROME_TRACE_MS));
  await browser.stopTracing();
}

/** The long tasks since `since`, each with the long animation frame around it and the older pages answered in it. */
async function writeTrace(page: Page, since: number, label: string): Promise<void> {
  // A string: tsx would wrap the inner functions in a helper the page does not have.
  const trace = await page.evaluate(`(() => {
    const bench = window.__bench;
    const within = (span, at) => at >= span.start && at <= span.start + span.duration;
    return bench.longtasks
      .filter((task) => task.start >= ${since})
      .map((task) => ({
        task,
        frame: bench.frames.find((frame) => within(frame, task.start)),
        pages: bench.pages.filter((page) => page.answered >= task.start - 100 && page.answered <= task.start + task.duration),
        reads: bench.reads.filter((read) => within(task, read.read)).map((read) => read.path),
      }));
  })()`);
  writeFileSync(join(TRACE_DIR!, `${label}-${Date.now()}.json`), JSON.stringify(trace, null, 1));
}

function roundAll(figures: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(figures).map(([key, value]) => [key, round2(value)]));
}

await ensureAppBuilt();
const big = await startHistoryServer({
  people: PEOPLE,
  chats: CHATS,
  messages: PER_CHAT,
  others_messages: OTHERS_MESSAGES,
  long: LONG,
  devices: 1,
});
const small = await startHistoryServer(SMALL);
const browser = await launchBrowser();
try {
  const bigContext = await warmContext(browser, big, CHATS);
  const smallContext = await warmContext(browser, small, SMALL.chats);
  const runs: Record<string, number>[] = [];
  for (let run = 0; run < RUNS; run++) {
    const measured = await measure(bigContext, big, LONG, "big");
    const baseline = await measure(smallContext, small, SMALL.long, "small");
    const renamed = Object.fromEntries(Object.entries(baseline).map(([key, value]) => [`${key}_100_chats`, value]));
    const figures = {
      ...measured,
      ...renamed,
      interactive_vs_100_chats: measured.interactive_ms / baseline.interactive_ms,
      long_chat_paint_vs_100_message_chat: measured.long_chat_paint_ms / baseline.long_chat_paint_ms,
      load_average: loadavg()[0]!,
    };
    runs.push(figures);
    console.error(JSON.stringify({ run: run + 1, ...roundAll(figures) }));
  }
  const medians = Object.fromEntries(
    Object.keys(runs[0]!).map((key) => [key, round2(median(runs.map((r) => r[key]!)))]),
  );
  console.log(
    JSON.stringify({
      bench: "history-app",
      runs: RUNS,
      people: PEOPLE,
      chats: CHATS,
      messages: MESSAGES,
      long_chat: LONG,
      others_messages_per_chat: OTHERS_MESSAGES,
      cpu_throttle: THROTTLE,
      seed_ms: big.seed_ms,
      ...medians,
      per_run: runs.map(roundAll),
    }),
  );
} finally {
  await browser.close();
  await Promise.all([big.stop(), small.stop()]);
}
