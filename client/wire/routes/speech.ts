// Voice (docs/voice.md): what the server can do with speech, a recording transcribed, a text spoken.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { defineRoute } from "./route.ts";

/** OpenAI's own bound on `input`; the app asks a sentence at a time (at most 400 characters) through the relay. */
export const MAX_SPEECH_TEXT = 4096;

export const speechStatusSchema = lazySchema(() =>
  z.object({
    stt: z.boolean(),
    tts: z.boolean(),
    voices: z.array(z.string()),
    input: z.enum(["any", "wav"]),
  }),
);
export type SpeechStatus = z.infer<typeof speechStatusSchema>;

export const speechStatusRoute = defineRoute("GET", "/speech", () => ({
  answer: speechStatusSchema,
}));

/** The body is the recording's bytes, typed by its Content-Type (audio/webm, audio/ogg, audio/mp4, audio/mpeg, audio/wav);
 *  or JSON `{upload_id}` (client/wire/routes/uploads.ts): a recording sent in parts. */
export const transcriptionRoute = defineRoute("POST", "/audio/transcriptions", () => ({
  rawBody: true,
  answer: z.object({ text: z.string() }),
  errors: [
    "speech_not_configured",
    "audio_too_large",
    "unsupported_media_type",
    "provider_error",
    "upload_not_found",
    "upload_incomplete",
  ],
}));

export const speechRoute = defineRoute("POST", "/audio/speech", () => ({
  body: z
    .object({
      text: z
        .string()
        .refine((text) => text.trim() !== "", "text must not be blank")
        .pipe(z.string().max(MAX_SPEECH_TEXT, `text must be at most ${MAX_SPEECH_TEXT} characters`)),
      voice: z.string().min(1).max(100).optional(),
      format: z.enum(["mp3", "wav", "opus"]).default("mp3"),
    })
    .strict(),
  /** The audio's bytes (its media type in Content-Type). */
  answer: z.custom<{ media_type: string; bytes: Uint8Array }>(),
  bytes: true,
  errors: ["speech_not_configured", "provider_error"],
}));
