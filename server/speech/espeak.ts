// Text to speech with Debian's espeak-ng (docs/voice.md "Read aloud"), so a server with no TTS backend can still
// speak. The text goes on stdin (never argv: a text starting with "-" is not an option), the WAV comes back on
// stdout. espeak-ng writes a streaming header with unknown sizes, so the whole answer is read (a few hundred KiB a
// sentence) and its sizes are set, which every browser's <audio> plays. At most two run at once: each takes a core.
import { spawn, spawnSync } from "node:child_process";
import { boundedStdout } from "../child-output.ts";
import { badGateway } from "../errors.ts";

export const ESPEAK_PATH = process.env.ESPEAK_NG_PATH ?? "espeak-ng";
const RUNNING_AT_MOST = 2;
/** Bound on one answer: about 20 minutes of 22 kHz speech; more means something is wrong. */
const MAX_WAV_BYTES = 64 * 1024 * 1024;

let available: boolean | undefined;
let voices: string[] | undefined;

/** Whether espeak-ng runs on this machine (asked once). */
export function espeakAvailable(): boolean {
  available ??= spawnSync(ESPEAK_PATH, ["--version"], { stdio: "ignore", timeout: 5000 }).status === 0;
  return available;
}

/** Its voices, by the language name `-v` takes (`en-us`, `de`, …), asked once. */
export function espeakVoices(): string[] {
  if (!espeakAvailable()) return [];
  voices ??= parseVoices(spawnSync(ESPEAK_PATH, ["--voices"], { encoding: "utf8", timeout: 5000 }).stdout ?? "");
  return voices;
}

export function parseVoices(listing: string): string[] {
  return listing
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[1])
    .filter((name): name is string => name !== undefined && /^[a-z][a-z0-9-]*$/i.test(name));
}

const waiting: Array<() => void> = [];
let running = 0;

async function slot(): Promise<() => void> {
  if (running >= RUNNING_AT_MOST) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/** The text spoken as a WAV file. */
export async function espeakWav(text: string, voice: string | undefined, timeoutMs: number): Promise<Buffer> {
  const release = await slot();
  try {
    return fixSizes(await run(text, voice, timeoutMs));
  } finally {
    release();
  }
}

function run(text: string, voice: string | undefined, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const args = ["--stdout", "-b", "1", ...(voice ? ["-v", voice] : [])];
    const child = spawn(ESPEAK_PATH, args, { stdio: ["pipe", "pipe", "ignore"], timeout: timeoutMs });
    const output = boundedStdout(child, MAX_WAV_BYTES);
    child.on("error", (error) => reject(badGateway("provider_error", `espeak-ng could not run: ${error.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) resolve(output());
      else reject(badGateway("provider_error", `espeak-ng ended with ${signal ?? `exit code ${code}`}`));
    });
    child.stdin.on("error", () => {}); // it may exit before reading all of it; "close" says how it ended
    child.stdin.end(text);
  });
}

/** Sets the RIFF and data chunk sizes of a canonical 44-byte-header WAV to what was actually written. */
export function fixSizes(wav: Buffer): Buffer {
  if (wav.length < 44 || wav.toString("ascii", 0, 4) !== "RIFF" || wav.toString("ascii", 36, 40) !== "data") return wav;
  wav.writeUInt32LE(wav.length - 8, 4);
  wav.writeUInt32LE(wav.length - 44, 40);
  return wav;
}
