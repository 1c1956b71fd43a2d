// Dictation's server side (docs/voice.md "Dictation"): the recording is forwarded as OpenAI's multipart form (`file`
// named by its type, `model`, `response_format: json`) to `<base_url>/audio/transcriptions`, and the backend's
// `{text}` is the answer. whisper.cpp's server, faster-whisper (speaches), vLLM, LocalAI and hosted APIs all take it.
import { randomBytes } from "node:crypto";
import { request } from "undici";
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
  const form = multipartForm(audio, mediaType, endpoint.model);
  const answer = await request(url, {
    method: "POST",
    headers: { ...authHeaders(endpoint), "content-type": form.contentType },
    body: form.body,
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

/**
 * OpenAI's form as one buffer (RFC 7578): the recording is already in memory, and building the body at once costs a
 * copy, where undici's FormData streams a Blob through web streams (about 10 ms more a call, scripts/bench/voice.ts).
 */
export function multipartForm(
  audio: Uint8Array,
  mediaType: AudioMediaType,
  model: string | undefined,
): { contentType: string; body: Buffer } {
  const boundary = `chat-relay-${randomBytes(12).toString("hex")}`;
  const field = (name: string, value: string) =>
    `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head =
    (model ? field("model", model) : "") +
    field("response_format", "json") +
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${AUDIO_FILE_NAMES[mediaType]}"\r\n` +
    `content-type: ${mediaType}\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(head), audio, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
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
