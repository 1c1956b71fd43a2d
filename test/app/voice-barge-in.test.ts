// Barge-in in Chromium (docs/voice.md "Conversation mode", V42): the test speaks into the page's microphone
// (TEST_MICROPHONE): the first utterance is a turn whose reply plays a long piece of audio, and the second is spoken
// once that piece plays and the reply's next sentence has been asked for, so it must stop the playback and start a new
// turn. Every wait is on something the page or the backend reports (the strip's states, the audio elements' events, the
// backend's request log), never on time. (The utterances were once one WAV that Chromium's fake microphone played in
// real time, 20 s apart: under load the first turn's round trip outlasted the gap, and the test needed a retry.)
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { tone } from "../../scripts/scripted-backend/audio.ts";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { AppStack } from "./support/app-stack.ts";
import { openPage, pairThroughLink, PHONE } from "./support/browser.ts";
import {
  launchWithMicrophone,
  MEDIA_TRAIL,
  say,
  spoken,
  STATE_TRAIL,
  TEST_MICROPHONE,
  TEST_SPEECH,
  type MediaEvent,
} from "./support/voice.ts";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 90_000 });

const FIRST = "Tell me a long story";
/** Long, with pauses between its words: the barge-in must be heard through them. */
const SECOND = "No, stop there, and tell me about the weather in Lisbon instead";
/** The first reply's first piece: long enough that the second utterance surely falls inside it. */
const LONG_PIECE_SECONDS = 90;

let stack: AppStack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([AppStack.startApp({ speech: TEST_SPEECH }), launchWithMicrophone()]);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

/** What the page kept: the strip's states and the audio elements' events. */
async function trails(page: Page): Promise<{ states: string[]; media: MediaEvent[] }> {
  return page.evaluate(() => {
    const scope = window as unknown as { __states: string[]; __media: MediaEvent[] };
    return { states: scope.__states, media: scope.__media };
  });
}

/** Runs `wait`; when it fails, the error says which states and playback the page went through. */
async function traced<T>(page: Page, what: string, wait: () => Promise<T>): Promise<T> {
  try {
    return await wait();
  } catch (error) {
    const { states, media } = await trails(page).catch(() => ({ states: [], media: [] }));
    const requests = stack.backend.requests.map((r) => r.path).join(", ");
    throw new Error(
      `${what}: ${(error as Error).message}\nstates: ${states.join(" → ")}\nmedia: ${JSON.stringify(media)}\n` +
        `backend requests: ${requests}`,
    );
  }
}

const transcriptions = () => stack.backend.requests.filter((r) => r.path === "/v1/audio/transcriptions").length;
/** The backend's speech and transcription requests, in order. */
const audioAsked = () => stack.backend.requests.filter((r) => /audio\/(speech|transcriptions)$/.test(r.path));
/** Where the speech of `text` was asked for among them (-1: never). */
const spokenAt = (text: string) => audioAsked().findIndex((r) => (r.body as { input?: string }).input === text);

it("V42 a barge-in: speaking over the reply stops its playback and starts a new turn; both turns land in the chat", async () => {
  const app = await openPage(browser, PHONE);
  const page = app.page;
  await app.context.addInitScript(STATE_TRAIL);
  await app.context.addInitScript(MEDIA_TRAIL);
  await app.context.addInitScript(TEST_MICROPHONE);
  await pairThroughLink(page, (await stack.createPairing()).pair_url, "voice phone");
  await page.goto(`${stack.serverUrl}/#/new`);
  const story = "Once upon a time a relay carried messages across the night. It never slept. The end.";
  stack.backend.scriptTranscripts(`${FIRST}.`, `${SECOND}.`);
  // The story streams a word every 50 ms, so its second sentence comes while the first piece already plays.
  stack.backend.script(
    { ...dialectStream("openai", { content: story }), delayMs: 50 },
    dialectStream("openai", { content: "Sure." }),
  );
  stack.backend.scriptSpeech({ kind: "bytes", contentType: "audio/wav", body: tone(LONG_PIECE_SECONDS) });

  await page.getByRole("button", { name: "Conversation mode" }).click();
  const state = page.locator(".conversation-state");
  await traced(page, "listening", () => state.getByText("Listening…").waitFor({ timeout: 60_000 }));
  // The first turn: transcribed, sent, and its reply's long first piece playing.
  await say(page, spoken(FIRST, 0));
  await traced(page, "first reply playing", () => state.getByText(/^Speaking/).waitFor({ timeout: 60_000 }));
  expect(transcriptions()).toBe(1);
  // The story's next sentence is asked for while the long piece plays (to follow it without a gap).
  await traced(page, "next sentence asked for", () =>
    expect.poll(() => spokenAt("It never slept."), { timeout: 60_000 }).toBeGreaterThan(0),
  );
  // The second utterance comes over it: the playback stops and a new turn is transcribed.
  await say(page, spoken(SECOND, 0));
  await traced(page, "second turn transcribed", () => expect.poll(transcriptions, { timeout: 60_000 }).toBe(2));
  await traced(page, "both turns in the chat", async () => {
    await page.locator('article[data-role="user"]', { hasText: `${SECOND}.` }).waitFor({ timeout: 60_000 });
    await page.locator('article[data-role="assistant"]', { hasText: "Sure." }).waitFor({ timeout: 60_000 });
  });
  await page.locator('article[data-role="user"]', { hasText: `${FIRST}.` }).waitFor();
  await page.locator('article[data-role="assistant"]', { hasText: "The end." }).waitFor();

  // The story's next sentence was asked for before the barge-in stopped the reply; the one after it never was (one
  // piece ahead, no more).
  const secondTurn = audioAsked().filter((r) => r.path.endsWith("transcriptions"))[1];
  expect(spokenAt("It never slept.")).toBeLessThan(audioAsked().indexOf(secondTurn!));
  expect(spokenAt("The end.")).toBe(-1);
  const { states, media } = await trails(page);
  // The long piece (element 0) was paused well before its end, and never ended.
  const long = media.filter((event) => event.element === 0);
  expect(long[0]?.type).toBe("playing");
  expect(long.filter((event) => event.type === "ended")).toEqual([]);
  expect(long.at(-1)).toMatchObject({ type: "pause", duration: LONG_PIECE_SECONDS });
  expect(long.at(-1)!.at).toBeLessThan(LONG_PIECE_SECONDS / 2);
  // The strip went from speaking straight to hearing the person (the barge-in), not through listening.
  const said = states.map((entry) => entry.replace(/^\d+ /, ""));
  const speaking = said.indexOf("Speaking: tap to interrupt");
  expect(said.slice(speaking, speaking + 3)).toEqual(["Speaking: tap to interrupt", "Hearing you…", "Got it…"]);
  expect(app.errors).toEqual([]);
  await app.context.close();
});
