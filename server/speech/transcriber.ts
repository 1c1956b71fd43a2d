// Dictation's server side (docs/voice.md "Dictation"): the recording is forwarded as OpenAI's multipart form (`file`
// named by its type, `model`, `response_format: json`) to `<base_url>/audio/transcriptions`, and the backend's
// `{text}` is the answer. whisper.cpp's server, faster-whisper (speaches), vLLM, LocalAI and hosted APIs all take it.
import { FormData, request } from "undici";
import { z } from "zod";
import { badGateway } from "../errors.ts";
import { authHeaders, refused, unreachable, type SpeechEndpoint } from "./backend.ts";
import { AUDIO_FILE_NAMES, type AudioMediaType } from "./media-types.ts";

/** A transcription's JSON is a line of text; anything much larger is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

const answerSchema = z.looseObject({ text: z.string() });

export async function transcribe(
  endpoint: SpeechEndpoint,
  audio: Uint8Array,
  mediaType: AudioMediaType,
  timeoutMs: number,
): Promise<string> {
  const url = `${endpoint.baseUrl}/audio/transcriptions`;
  const form = new FormData();
  form.set("file", new Blob([audio as Uint8Array<ArrayBuffer>], { type: mediaType }), AUDIO_FILE_NAMES[mediaType]);
  if (endpoint.model) form.set("model", endpoint.model);
  form.set("response_format", "json");
  const answer = await request(url, {
    method: "POST",
    headers: authHeaders(endpoint),
    body: form,
    signal: AbortSignal.timeout(timeoutMs),
  }).catch((error: unknown) => {
    throw unreachable(url, error);
  });
  const text = await readBounded(answer.body, MAX_ANSWER_BYTES).catch((error: unknown) => {
    throw unreachable(url, error);
  });
  if (answer.statusCode < 200 || answer.statusCode > 299) throw refused(answer.statusCode, text);
  return parseAnswer(text);
}

function parseAnswer(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badGateway("provider_error", "the speech backend's transcription is not JSON (is response_format honoured?)");
  }
  const result = answerSchema.safeParse(parsed);
  if (!result.success) throw badGateway("provider_error", "the speech backend's transcription has no `text`");
  return result.data.text.trim();
}

/** The body as text, refusing more than `max` bytes (the rest is not read). */
export async function readBounded(body: AsyncIterable<Buffer> & { destroy(): void }, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw new Error(`the answer is larger than ${max} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
