// OpenAI's audio API on the scripted backend (docs/voice.md "Testing"): POST <prefix>/audio/transcriptions takes
// the multipart form a real backend takes and answers `{text}` (the next queued transcript, else one naming the
// recording's size and type, so a test can tell which recording arrived), and POST <prefix>/audio/speech answers a
// WAV of the text spoken by espeak-ng when it is installed, else a tone as long as the text would take to say.
// A queued Scenario instead of a transcript answers that (an error status, a hang) for either route.
import { spawn } from "node:child_process";
import type { IncomingMessage } from "node:http";
import { fixSizes } from "../../server/speech/espeak.ts";
import type { Scenario } from "./scenarios.ts";

export type AudioAnswer = string | Scenario;

/** What the backend recorded of a transcription request (its body is multipart, so a summary is kept). */
export interface TranscriptionForm {
  file: { name: string; type: string; size: number } | undefined;
  model: string | undefined;
  response_format: string | undefined;
}

export async function readTranscriptionForm(req: IncomingMessage, body: Buffer): Promise<TranscriptionForm> {
  const form = await new Response(new Uint8Array(body), {
    headers: { "content-type": req.headers["content-type"] ?? "" },
  })
    .formData()
    .catch(() => undefined);
  const file = form?.get("file");
  const text = (name: string) => {
    const value = form?.get(name);
    return typeof value === "string" ? value : undefined;
  };
  return {
    file: file instanceof Blob ? { name: (file as File).name, type: file.type, size: file.size } : undefined,
    model: text("model"),
    response_format: text("response_format"),
  };
}

export function defaultTranscript(form: TranscriptionForm): string {
  return form.file ? `scripted transcript of ${form.file.size} bytes of ${form.file.type || "audio"}` : "";
}

/** The text as a 16-bit mono WAV: espeak-ng's voice, or a 440 Hz tone of about 70 ms a character. */
export async function speechWav(text: string): Promise<Buffer> {
  return (await espeak(text).catch(() => undefined)) ?? tone(Math.min(20, 0.07 * text.length + 0.2));
}

function espeak(text: string): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const child = spawn(process.env.ESPEAK_NG_PATH ?? "espeak-ng", ["--stdout", "-b", "1"], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", () => resolve(undefined));
    child.on("close", (code) => resolve(code === 0 ? fixSizes(Buffer.concat(chunks)) : undefined));
    child.stdin.on("error", () => {});
    child.stdin.end(text);
  });
}

export function tone(seconds: number, rate = 16_000): Buffer {
  const samples = Math.round(seconds * rate);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8, "ascii");
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++)
    wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return wav;
}
