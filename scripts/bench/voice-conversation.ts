// Conversation-latency benchmark (docs/voice.md "Conversation mode"), in Chromium with the fake microphone playing a
// question spoken by espeak-ng, over a real server and bridge: from the end-of-turn decision (the app's performance
// mark `voice:turn-ended`, 1.2 s after the last voiced frame) to the first audio of the reply (`voice:first-audio`,
// when the first sentence starts to play), against the providers' own times in the same round, timed at the providers
// (voice-providers/timed-backend.ts): STT's answer, the model's first sentence (a word every WORD_MS), and TTS of that
// sentence (espeak-ng). overhead = latency - that sum: what the app, the server and the hops between them add (target
// ≤ 300 ms). Each round starts the mode afresh (the fake microphone plays its file from the start for each capture);
// one warm-up round first (the voice chunk loads). Prints one JSON line: medians of BENCH_RUNS (default 5) rounds.
// Usage: node --import tsx scripts/bench/voice-conversation.ts
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { ensureAppBuilt } from "../build-app.ts";
import { AppStack } from "../../test/app/support/app-stack.ts";
import { CHROMIUM_ARGS, openPage, pairThroughLink, PHONE } from "../../test/app/support/browser.ts";
import { utterances } from "../../test/app/support/voice.ts";
import { median } from "./stats.ts";
import { startTimedBackend, type ProviderTimes, type TimedBackend } from "./voice-providers/timed-backend.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const WORD_MS = 40;
const QUESTION = "What is the weather in Lisbon";
const REPLY = "It is sunny in Lisbon today. About twenty degrees, with a light wind from the sea.";

interface Round extends ProviderTimes {
  latency_ms: number;
}

/**
 * One turn in the open chat: the mode on, the question heard, the reply's first audio; then the reply said and the mode
 * off. The warm-up round starts at a new chat (its first send creates it and the page moves to the chat's address); the
 * measured ones are later turns of that chat, as most turns of a conversation are.
 */
async function round(page: Page, backend: TimedBackend, newChatUrl?: string): Promise<Round> {
  if (newChatUrl) await page.goto(newChatUrl);
  const mode = page.getByRole("button", { name: "Conversation mode" });
  await mode.waitFor();
  backend.reset();
  const before = await page.evaluate(() => performance.getEntriesByName("voice:first-audio").length);
  await mode.click(); // the microphone opens: the fake device plays its file from the start
  await page.waitForFunction((n) => performance.getEntriesByName("voice:first-audio").length > n, before, {
    timeout: 60_000,
  });
  await page.locator(".conversation-state", { hasText: "Listening…" }).waitFor({ timeout: 60_000 });
  await mode.click();
  // Read inline: tsx names the functions it compiles (`__name`), which the page does not have.
  const latency = await page.evaluate(
    () =>
      performance.getEntriesByName("voice:first-audio").at(-1)!.startTime -
      performance.getEntriesByName("voice:turn-ended").at(-1)!.startTime,
  );
  const times = backend.times();
  if (!times) throw new Error("a provider was not called in this round");
  return { latency_ms: latency, ...times };
}

async function main(): Promise<void> {
  await ensureAppBuilt();
  const dir = mkdtempSync(join(tmpdir(), "voice-bench-"));
  const microphone = join(dir, "microphone.wav");
  writeFileSync(microphone, utterances(1, QUESTION, 3));
  const backend = await startTimedBackend({ transcript: `${QUESTION}?`, reply: REPLY, wordMs: WORD_MS });
  const [stack, browser] = await Promise.all([
    AppStack.startApp({
      providers: { default: { provider: "reference_compatible", model: "timed", base_url: backend.url } },
      speech: { stt: { provider_id: "default", model: "whisper-1" }, tts: { provider_id: "default", model: "tts-1" } },
    }),
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        ...CHROMIUM_ARGS,
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        `--use-file-for-fake-audio-capture=${microphone}%noloop`,
        "--autoplay-policy=no-user-gesture-required",
      ],
    }),
  ]);
  try {
    const { page } = await openPage(browser, PHONE);
    await pairThroughLink(page, (await stack.createPairing()).pair_url, "voice bench");
    const rounds: Round[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const measured = await round(page, backend, run === 0 ? `${stack.serverUrl}/#/new` : undefined);
      if (run > 0) rounds.push(measured); // the first is the warm-up
    }
    const sum = (r: Round) => r.stt_ms + r.first_sentence_ms + r.tts_ms;
    const figure = (pick: (r: Round) => number) => Math.round(median(rounds.map(pick)));
    process.stdout.write(
      `${JSON.stringify({
        bench: "voice-conversation",
        runs: RUNS,
        latency_ms: figure((r) => r.latency_ms),
        provider_sum_ms: figure(sum),
        overhead_ms: figure((r) => r.latency_ms - sum(r)),
        stt_ms: figure((r) => r.stt_ms),
        first_sentence_ms: figure((r) => r.first_sentence_ms),
        tts_ms: figure((r) => r.tts_ms),
        target_overhead_ms: 300,
        overheads_ms: rounds.map((r) => Math.round(r.latency_ms - sum(r))),
      })}\n`,
    );
  } finally {
    await browser.close();
    await stack.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
