// Voice benchmark (docs/voice.md): what the server adds to a speech call. For each of N rounds, the same recording is
// transcribed and the same sentence spoken twice, interleaved: once through the server (POST /audio/transcriptions,
// POST /audio/speech, as an app calls them) and once straight to the speech backend (the scripted backend's
// /v1/audio/transcriptions with the same multipart form, /v1/audio/speech with the same JSON), the baseline. The
// backend answers from memory (a queued transcript, a pre-made WAV), so the difference is the server's own time:
// auth, parsing, the multipart form, forwarding and streaming the answer back. Figures: p50 and p99 of each, and
// p50 added (through the server minus direct).
// Usage: node --import tsx scripts/bench/voice.ts [--rounds 400]
import { parseArgs } from "node:util";
import { request } from "undici";
import { multipartForm } from "../../server/speech/transcriber.ts";
import { startScriptedBackend } from "../scripted-backend/index.ts";
import { tone } from "../scripted-backend/audio.ts";
import { ADMIN_TOKEN, startTestServer } from "../../test/support/server.ts";
import { percentile } from "./stats.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "400" } } });
const rounds = Number(values.rounds);

const backend = await startScriptedBackend();
const wav = tone(2);
const server = await startTestServer({
  providers: { local: { provider: "reference_compatible", model: "m", base_url: backend.url } },
  speech: { stt: { provider_id: "local", model: "whisper-1" }, tts: { provider_id: "local", model: "tts-1" } },
});
const url = await server.runtime.app.listen({ port: 0, host: "127.0.0.1" });
const recording = new Uint8Array(48_000).map((_, i) => (i * 7) & 0xff);
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function timed(work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function drain(answer: Awaited<ReturnType<typeof request>>): Promise<void> {
  if (answer.statusCode !== 200) throw new Error(`status ${answer.statusCode}: ${await answer.body.text()}`);
  await answer.body.arrayBuffer();
}

const through = {
  stt: () =>
    request(`${url}/audio/transcriptions`, {
      method: "POST",
      headers: { ...auth, "content-type": "audio/webm" },
      body: recording,
    }).then(drain),
  tts: () =>
    request(`${url}/audio/speech`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ text: "The weather in Lisbon is sunny." }),
    }).then(drain),
};

const direct = {
  stt: () => {
    // The same bytes on the wire as the server sends (its own form encoder): the difference is the server's hop.
    const form = multipartForm(recording, "audio/webm", "whisper-1");
    return request(`${backend.url}/audio/transcriptions`, {
      method: "POST",
      headers: { "content-type": form.contentType },
      body: form.body,
    }).then(drain);
  },
  tts: () =>
    request(`${backend.url}/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "tts-1", input: "The weather in Lisbon is sunny.", response_format: "mp3" }),
    }).then(drain),
};

const samples = {
  stt: { through: [] as number[], direct: [] as number[] },
  tts: { through: [] as number[], direct: [] as number[] },
};
for (let round = 0; round < rounds + 20; round++) {
  // Every speech answer comes from memory: a pre-made WAV, not espeak-ng.
  backend.scriptSpeech(
    { kind: "bytes", contentType: "audio/wav", body: wav },
    { kind: "bytes", contentType: "audio/wav", body: wav },
  );
  const times = {
    sttThrough: await timed(through.stt),
    sttDirect: await timed(direct.stt),
    ttsThrough: await timed(through.tts),
    ttsDirect: await timed(direct.tts),
  };
  if (round < 20) continue; // warm-up
  samples.stt.through.push(times.sttThrough);
  samples.stt.direct.push(times.sttDirect);
  samples.tts.through.push(times.ttsThrough);
  samples.tts.direct.push(times.ttsDirect);
}

const figure = (list: number[]) => ({ p50_ms: round2(percentile(list, 50)), p99_ms: round2(percentile(list, 99)) });
const round2 = (n: number) => Math.round(n * 100) / 100;
console.log(
  JSON.stringify({
    bench: "voice",
    rounds,
    transcription: {
      through_server: figure(samples.stt.through),
      direct: figure(samples.stt.direct),
      added_p50_ms: round2(percentile(samples.stt.through, 50) - percentile(samples.stt.direct, 50)),
    },
    speech: {
      through_server: figure(samples.tts.through),
      direct: figure(samples.tts.direct),
      added_p50_ms: round2(percentile(samples.tts.through, 50) - percentile(samples.tts.direct, 50)),
    },
    floor_added_p50_ms: 5,
  }),
);
await server.close();
await backend.close();
