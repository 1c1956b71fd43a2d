// Read aloud's server side (docs/voice.md "Read aloud"): OpenAI's `POST <base_url>/audio/speech` {model, input,
// voice, response_format}, whose audio is streamed on to the caller as it arrives (Kokoro-FastAPI, openedai-speech,
// LocalAI and hosted APIs serve it), or espeak-ng on this machine.
import type { Readable } from "node:stream";
import { request } from "undici";
import { authHeaders, refused, unreachable, type SpeechEndpoint } from "./backend.ts";
import { readBounded } from "./transcriber.ts";
import { SPEECH_FORMATS, type SpeechFormat } from "./media-types.ts";

/** An error answer is a message, not audio: read at most this much of it. */
const MAX_ERROR_BYTES = 64 * 1024;

export interface SpokenAudio {
  mediaType: string;
  /** The audio as it arrives from the backend (a Buffer when it was made here). */
  body: Readable | Buffer;
}

export interface SpeakRequest {
  text: string;
  voice: string | undefined;
  format: SpeechFormat;
}

export async function speakThroughBackend(
  endpoint: SpeechEndpoint,
  input: SpeakRequest,
  timeoutMs: number,
): Promise<SpokenAudio> {
  const url = `${endpoint.baseUrl}/audio/speech`;
  const body = JSON.stringify({
    ...(endpoint.model ? { model: endpoint.model } : {}),
    input: input.text,
    ...(input.voice ? { voice: input.voice } : {}),
    response_format: input.format,
  });
  const answer = await request(url, {
    method: "POST",
    headers: { ...authHeaders(endpoint), "content-type": "application/json" },
    body,
    // Until the answer's headers: a long text's audio may then take its time to stream.
    headersTimeout: timeoutMs,
  }).catch((error: unknown) => {
    throw unreachable(url, error);
  });
  if (answer.statusCode < 200 || answer.statusCode > 299) {
    const said = await readBounded(answer.body, MAX_ERROR_BYTES).catch(() => "");
    throw refused(answer.statusCode, said);
  }
  const declared = answer.headers["content-type"];
  const mediaType =
    typeof declared === "string" && /^audio\//i.test(declared) ? declared : SPEECH_FORMATS[input.format];
  return { mediaType, body: answer.body };
}
