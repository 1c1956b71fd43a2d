// Companion app benchmark, in Chromium against a real server, bridge and a paced chat-completions backend.
// Prints one JSON line:
// - first_load_gzip_bytes: JS + CSS index.html loads before the app runs (gzip -9), against the 120 KiB budget;
//   bundle: what makes it up, per package (bundle-report.ts): first paint against what loads lazily;
// - load_to_interactive_ms: median of rounds, navigation start → the composer is enabled, paired, on loopback;
//   baseline_static_load_ms: the same navigation to the same server's /health (what a loopback page load costs);
// - commit_to_paint_p99_ms: a streamed token's store commit (event timestamp) → the next animation frame after
//   it is in the DOM, bridge live; baseline client_commit_to_listener_p99_ms: the same tokens' commit → the client
//   library's listener in Node, same run, same stream;
// - scroll_2000: long tasks over 50 ms while scrolling a 2,000-message chat from bottom to top, and the longest;
//   baseline_idle: long tasks over the same number of frames with the page idle (the machine's own noise).
// Rounds: BENCH_ROUNDS (default 5). The machine's load is not controlled: compare against the baselines.
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { connect } from "../../client/index.ts";
import { chunk } from "../scripted-backend/index.ts";
import { APP_DIST, ensureAppBuilt } from "../build-app.ts";
import { AppStack } from "../../test/app/support/app-stack.ts";
import { DESKTOP, launchBrowser, openPage, pairThroughLink } from "../../test/app/support/browser.ts";
import { FAST_RECONNECT, NodeWebSocket, untilLive } from "../../test/client/support/stack.ts";
import { bundleReport } from "./bundle-report.ts";
import { FIRST_LOAD_BUDGET_BYTES, firstLoadBytes } from "./first-load.ts";
import { median, percentile } from "./stats.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TOKENS = 200;
const TOKEN_INTERVAL_MS = 15;

/** A chat-completions backend that streams TOKENS tokens ("w0001 " ...) one every TOKEN_INTERVAL_MS. */
async function pacedBackend(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(chunk({ role: "assistant", content: "" }))}\n\n`);
      let sent = 0;
      const timer = setInterval(() => {
        if (sent === TOKENS) {
          clearInterval(timer);
          res.end(`data: ${JSON.stringify(chunk({}, "stop"))}\n\ndata: [DONE]\n\n`);
          return;
        }
        sent += 1;
        res.write(`data: ${JSON.stringify(chunk({ content: `w${String(sent).padStart(4, "0")} ` }))}\n\n`);
      }, TOKEN_INTERVAL_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

async function timeToInteractive(page: Page, url: string, ready: string): Promise<number> {
  await page.goto(url);
  await page.waitForSelector(ready, { state: "attached" });
  return page.evaluate(() => performance.now());
}

/** Records, at each animation frame after a DOM change, the highest token number on screen. */
const PAINT_PROBE = `
  window.__paints = [];
  new MutationObserver(() => requestAnimationFrame(() => {
    const text = document.querySelector('[data-streaming="true"]')?.textContent ?? "";
    const all = text.match(/w\\d{4}/g);
    if (all) window.__paints.push([Number(all[all.length - 1].slice(1)), performance.timeOrigin + performance.now()]);
  })).observe(document, { subtree: true, childList: true, characterData: true });`;

async function streamRound(stack: AppStack, page: Page, nodeLatencies: number[]): Promise<number[]> {
  const client = connect(await stack.pair("bench-node"), FAST_RECONNECT);
  client.start();
  await untilLive(client);
  // Live partials carry one token each and their commit time (the log compacts them when read over HTTP).
  const commits = new Map<number, number>();
  client.on("partial", (event) => {
    const token = /w(\d{4})/.exec(event.message.content);
    if (!token || !event.timestamp) return;
    commits.set(Number(token[1]), Date.parse(event.timestamp));
    nodeLatencies.push(Date.now() - Date.parse(event.timestamp));
  });
  await page.goto(`${stack.serverUrl}/#/new`);
  await page.waitForSelector('.connection[data-state="live"]');
  await page.evaluate(PAINT_PROBE);
  const done = new Promise<void>((resolve) => client.on("request_completed", () => resolve()));
  await page.getByRole("textbox", { name: "Message" }).fill("stream please");
  await page.getByRole("textbox", { name: "Message" }).press("Enter");
  await done;
  await page.waitForSelector('article[data-role="assistant"]:not([data-streaming])');
  const paints = await page.evaluate(() => (window as unknown as { __paints: Array<[number, number]> }).__paints);
  client.close();
  const latencies: number[] = [];
  for (const [token, committed] of commits) {
    const painted = paints.find(([shown]) => shown >= token);
    if (painted) latencies.push(painted[1] - committed);
  }
  return latencies;
}

/** In-page source (a string: the TypeScript loader's helpers do not exist in the page). */
const SCROLL_PROBE = `(async () => {
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const watch = async (work) => {
    const durations = [];
    const observer = new PerformanceObserver((list) => list.getEntries().forEach((entry) => durations.push(entry.duration)));
    observer.observe({ type: "longtask", buffered: false });
    const frames = await work();
    await new Promise((resolve) => setTimeout(resolve, 100));
    observer.disconnect();
    return { frames, durations };
  };
  const scroller = document.querySelector(".message-scroller");
  const scrolled = await watch(async () => {
    let frames = 0;
    for (; scroller.scrollTop > 0; frames++) {
      scroller.scrollBy(0, -600);
      await frame();
    }
    return frames;
  });
  const idle = await watch(async () => {
    for (let i = 0; i < scrolled.frames; i++) await frame();
    return scrolled.frames;
  });
  return {
    longTasks: scrolled.durations.filter((d) => d > 50).length,
    longestMs: Math.round(Math.max(0, ...scrolled.durations)),
    idleLongTasks: idle.durations.filter((d) => d > 50).length,
  };
})()`;

interface ScrollRound {
  longTasks: number;
  longestMs: number;
  /** The same number of animation frames with the page idle (no scrolling): what the loaded machine costs. */
  idleLongTasks: number;
}

async function scrollRound(page: Page, url: string): Promise<ScrollRound> {
  // A full load each round (the hash alone would keep the chat, scrolled to the top by the previous round).
  await page.goto("about:blank");
  await page.goto(url);
  await page.getByText("message number 1999", { exact: true }).waitFor();
  return page.evaluate(SCROLL_PROBE) as Promise<ScrollRound>;
}

async function main(): Promise<void> {
  await ensureAppBuilt();
  const paced = await pacedBackend();
  const [stack, browser] = await Promise.all([
    AppStack.startApp({
      providers: { default: { provider: "reference_compatible", model: "paced", base_url: paced.url } },
    }),
    launchBrowser(),
  ]);
  try {
    const { page } = await openPage(browser, DESKTOP);
    await pairThroughLink(page, (await stack.createPairing()).pair_url);
    const loads: number[] = [];
    const baselines: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      loads.push(
        await timeToInteractive(page, `${stack.serverUrl}/#/new`, 'textarea[aria-label="Message"]:not([disabled])'),
      );
      baselines.push(await timeToInteractive(page, `${stack.serverUrl}/health`, "pre"));
    }
    const paint: number[] = [];
    const node: number[] = [];
    for (let round = 0; round < Math.min(ROUNDS, 3); round++) paint.push(...(await streamRound(stack, page, node)));
    const sessionId = await stack.createSession();
    const messages = Array.from({ length: 2000 }, (_, index) => ({
      role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `message number ${index}`,
      metadata: {},
    }));
    stack.server.runtime.ctx.sessions.change(sessionId, (session) => ({
      next: { ...session, messages },
      events: () => [],
      result: () => undefined,
    }));
    const scrolls = [];
    for (let round = 0; round < ROUNDS; round++)
      scrolls.push(await scrollRound(page, `${stack.serverUrl}/#/s/${sessionId}`));
    const first = firstLoadBytes(APP_DIST);
    const bundle = await bundleReport(join(import.meta.dirname, "..", ".."));
    process.stdout.write(
      `${JSON.stringify({
        bench: "app",
        rounds: ROUNDS,
        first_load_gzip_bytes: first,
        first_load_budget_bytes: FIRST_LOAD_BUDGET_BYTES,
        load_to_interactive_ms: Math.round(median(loads)),
        baseline_static_load_ms: Math.round(median(baselines)),
        commit_to_paint_p50_ms: Math.round(percentile(paint, 50)),
        commit_to_paint_p99_ms: Math.round(percentile(paint, 99)),
        client_commit_to_listener_p50_ms: Math.round(percentile(node, 50)),
        client_commit_to_listener_p99_ms: Math.round(percentile(node, 99)),
        paint_samples: paint.length,
        scroll_2000_long_tasks_over_50ms_median: median(scrolls.map((s) => s.longTasks)),
        scroll_2000_longest_task_ms_median: median(scrolls.map((s) => s.longestMs)),
        baseline_idle_long_tasks_over_50ms_median: median(scrolls.map((s) => s.idleLongTasks)),
        bundle,
      })}\n`,
    );
  } finally {
    await browser.close();
    await stack.close();
    paced.server.close();
  }
}

await main();
