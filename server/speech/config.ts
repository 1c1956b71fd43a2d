// Config `speech` (docs/voice.md "Configuration"): where dictation is transcribed (STT) and replies are spoken (TTS).
// Each side is a provider of the config (its base_url and api_key), its own base_url, or for TTS the espeak-ng program
// on this machine. Absent: the app uses the browser's own speech where it has it.
import { z } from "zod";
import { webUrl } from "../config/web-url.ts";

/** OpenAI's own bound on a transcription upload; long dictation is cut by the app's recorder long before. */
const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;

const model = z.string().min(1).max(200);
const voice = z.string().min(1).max(100);

const sttSchema = z.union([
  z.object({ provider_id: z.string().min(1), model }).strict(),
  z.object({ base_url: webUrl("base_url"), api_key: z.string().min(1).optional(), model }).strict(),
]);

const ttsSchema = z.union([
  z.object({ engine: z.literal("espeak-ng"), voice: voice.optional() }).strict(),
  z.object({ provider_id: z.string().min(1), model: model.optional(), voice: voice.optional() }).strict(),
  z
    .object({
      base_url: webUrl("base_url"),
      api_key: z.string().min(1).optional(),
      model: model.optional(),
      voice: voice.optional(),
    })
    .strict(),
]);

export const speechConfigSchema = z
  .object({
    stt: sttSchema.optional(),
    tts: ttsSchema.optional(),
    max_bytes: z.number().int().positive().default(DEFAULT_MAX_BYTES),
    /** "wav": the STT backend takes only WAV (whisper.cpp's server without ffmpeg), so the app records 16 kHz WAV. */
    input: z.enum(["any", "wav"]).default("any"),
    /** Seconds a speech backend may take before the call fails with provider_error. */
    timeout_seconds: z.number().positive().max(600).default(60),
  })
  .strict();

export type SpeechConfig = z.output<typeof speechConfigSchema>;
export type SttConfig = NonNullable<SpeechConfig["stt"]>;
export type TtsConfig = NonNullable<SpeechConfig["tts"]>;
