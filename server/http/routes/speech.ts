// Voice (docs/voice.md): GET /speech, POST /audio/transcriptions (the recording's bytes), POST /audio/speech (audio,
// streamed as the backend makes it).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { speechRoute, speechStatusRoute, transcriptionRoute } from "../../../client/wire/routes/speech.ts";
import type { ServerContext } from "../../context.ts";
import { tooLarge, unsupportedMedia } from "../../errors.ts";
import { audioMediaType, AUDIO_FILE_NAMES } from "../../speech/media-types.ts";
import { serveRoute } from "../serve-route.ts";
import { drainThenRefuse, readBodyUpTo } from "../bounded-body.ts";
import { callerOfRoute } from "../auth.ts";

/** speech.max_bytes when the config has no `speech` (transcriptions then answer speech_not_configured anyway). */
const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;

export function registerSpeechRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { speech } = ctx;
  serveRoute(app, speechStatusRoute, () => speech.status());

  serveRoute(app, speechRoute, async ({ body, reply, request }) => {
    byPerson(request);
    const audio = await speech.speak({ text: body.text, voice: body.voice, format: body.format });
    return reply.type(audio.mediaType).header("cache-control", "no-store").send(audio.body);
  });

  // The recording is read by this scope's own parser, counted against speech.max_bytes as it comes.
  void app.register(async (scope) => {
    const maxBytes = () => speech.maxBytes() ?? DEFAULT_MAX_BYTES;
    const refusal = () => audioTooLarge(maxBytes());
    scope.addHook("onRequest", async (request, reply) => {
      if (Number(request.headers["content-length"] ?? 0) > maxBytes()) {
        reply.header("connection", "close");
        await drainThenRefuse(request.raw, maxBytes(), refusal());
      }
    });
    scope.addContentTypeParser(/^audio\//i, (_request, payload, done) => {
      readBodyUpTo(payload, maxBytes(), refusal).then((bytes) => done(null, bytes), done);
    });
    serveRoute(scope, transcriptionRoute, async ({ request }) => {
      byPerson(request);
      const mediaType = audioMediaType(request.headers["content-type"]);
      if (!mediaType || !Buffer.isBuffer(request.body)) throw unsupportedAudio(request);
      return { text: await speech.transcribe(request.body, mediaType) };
    });
  });
}

/**
 * The person a use of the speech backends is for, as every route asks it (a removed person's credentials were refused
 * before this): named in the request's log lines, since the audio itself is never logged (docs/people.md "Callers").
 */
function byPerson(request: FastifyRequest): void {
  const caller = callerOfRoute(request);
  request.log = request.log.child({ person_id: caller.person_id });
}

function audioTooLarge(maxBytes: number) {
  return tooLarge("audio_too_large", `the recording is larger than speech.max_bytes (${maxBytes} bytes)`, {
    max_bytes: maxBytes,
  });
}

function unsupportedAudio(request: FastifyRequest) {
  const type = request.headers["content-type"] || "no content type";
  return unsupportedMedia(
    "unsupported_media_type",
    `a transcription takes the recording's bytes as ${Object.keys(AUDIO_FILE_NAMES).join(", ")}, not ${type}`,
  );
}
