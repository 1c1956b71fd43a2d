// What the voice tests and the conversation benchmark share: utterances spoken by espeak-ng and joined into the WAV
// Chromium's fake microphone plays, and init scripts that keep a trail of what the page did (the conversation strip's
// states, the audio elements' playback), read back when a wait times out or to assert what happened.
import { execFileSync } from "node:child_process";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_ARGS } from "./browser.ts";

/** espeak-ng's 22,050 Hz 16-bit mono WAV header and samples. */
const RATE = 22_050;

function pcmOf(part: string | number): Buffer {
  if (typeof part === "number") return Buffer.alloc(Math.round(RATE * part) * 2);
  return execFileSync("espeak-ng", ["--stdout", "-s", "150"], { input: part }).subarray(44);
}

/**
 * One WAV of the parts in order: a string is spoken by espeak-ng, a number is that many seconds of silence. The header
 * is espeak-ng's own with the sizes set (it writes unknown sizes when streaming).
 */
export function utterances(...parts: Array<string | number>): Buffer {
  const pcm = Buffer.concat(parts.map(pcmOf));
  const header = Buffer.from(execFileSync("espeak-ng", ["--stdout"], { input: "a" }).subarray(0, 44));
  header.writeUInt32LE(36 + pcm.length, 4);
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** espeak-ng's WAV of `text` followed by `silenceSeconds` of silence. */
export function spoken(text: string, silenceSeconds: number): Buffer {
  return utterances(text, silenceSeconds);
}

/** How long the samples of a WAV made by `utterances` last, in seconds. */
export function secondsOf(wav: Buffer): number {
  return (wav.length - 44) / 2 / RATE;
}

/** Keeps every text the conversation strip shows, with its time, in `window.__states`. */
export const STATE_TRAIL = (): void => {
  const trail: string[] = ((window as unknown as { __states: string[] }).__states = []);
  new MutationObserver(() => {
    const text = document.querySelector(".conversation-state")?.textContent ?? "(no strip)";
    if (trail.at(-1)?.replace(/^\d+ /, "") !== text) trail.push(`${Math.round(performance.now())} ${text}`);
  }).observe(document, { subtree: true, childList: true, characterData: true });
};

/** One audio element's playback events as `MEDIA_TRAIL` keeps them. */
export interface MediaEvent {
  element: number;
  type: "playing" | "pause" | "ended";
  /** Where in the audio it was (s), and how long the audio is (s). */
  at: number;
  duration: number;
}

/**
 * Keeps every audio element's playing, pause and ended events in `window.__media` (an element is numbered the first
 * time it plays): the speaker's elements are never in the document, so their events are caught where they start.
 */
export const MEDIA_TRAIL = (): void => {
  const trail: MediaEvent[] = ((window as unknown as { __media: MediaEvent[] }).__media = []);
  const numbered = new WeakMap<HTMLMediaElement, number>();
  let count = 0;
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
    if (!numbered.has(this)) {
      const element = count++;
      numbered.set(this, element);
      for (const type of ["playing", "pause", "ended"] as const)
        this.addEventListener(type, () => trail.push({ element, type, at: this.currentTime, duration: this.duration }));
    }
    return play.call(this);
  };
};

/**
 * Replaces getUserMedia with a stream the test speaks into: `__say(base64 wav)` plays one utterance into it and
 * resolves when it has been played. Each utterance comes exactly when the test says, not at a time fixed in a WAV that
 * Chromium's fake microphone plays in real time from its start (a round trip slower than the gap left for it, on a
 * loaded machine, then met the next utterance).
 */
export const TEST_MICROPHONE = (): void => {
  const context = new AudioContext();
  const destination = context.createMediaStreamDestination();
  const scope = window as unknown as { __say(wav: string): Promise<void> };
  scope.__say = async (wav) => {
    await context.resume();
    const bytes = Uint8Array.from(atob(wav), (c) => c.charCodeAt(0));
    const buffer = await context.decodeAudioData(bytes.buffer);
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(destination);
    await new Promise<void>((resolve) => ((source.onended = () => resolve()), source.start()));
  };
  navigator.mediaDevices.getUserMedia = async () => destination.stream;
};

/** Speaks `wav` into the page's TEST_MICROPHONE; resolves once it has been played. */
export function say(page: Page, wav: Buffer): Promise<void> {
  return page.evaluate(
    (base64) => (window as unknown as { __say(wav: string): Promise<void> }).__say(base64),
    wav.toString("base64"),
  );
}

/** The speech config of the voice tests: STT and TTS both on the scripted backend ("default"). */
export const TEST_SPEECH = {
  stt: { provider_id: "default", model: "whisper-1" },
  tts: { provider_id: "default", model: "tts-1" },
};

/**
 * Chromium with autoplay allowed (the replies speak without a tap) whose fake microphone plays `wav` once; without
 * `wav` its pages are given TEST_MICROPHONE instead.
 */
export function launchWithMicrophone(wav?: string): Promise<Browser> {
  const microphone = wav
    ? ["--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${wav}%noloop`]
    : [];
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      ...CHROMIUM_ARGS,
      "--use-fake-ui-for-media-stream",
      ...microphone,
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
}
