// The providers of the conversation-latency benchmark, timing their own work the way a real provider's time would be
// read: STT and TTS from a request's arrival to its answer's last byte, the model from its request's arrival to the
// write that completes the reply's first sentence. STT answers a fixed transcript; the model streams a fixed reply a
// word every `wordMs`; TTS speaks with espeak-ng (scripted-backend/audio.ts, a tone where it is missing).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { chunk } from "../../scripted-backend/index.ts";
import { speechWav } from "../../scripted-backend/audio.ts";

export interface ProviderTimes {
  stt_ms: number;
  first_sentence_ms: number;
  tts_ms: number;
}

export interface TimedBackend {
  /** base_url of the chat, STT and TTS provider. */
  url: string;
  /** The first STT, chat and TTS request's times since the last `reset`, once all three have answered. */
  times(): ProviderTimes | undefined;
  reset(): void;
  close(): Promise<void>;
}

/** Times of the current round: each route's first request only (the next sentences' TTS is not on the path). */
interface Round {
  stt?: number;
  firstSentence?: number;
  tts?: number;
}

export async function startTimedBackend(options: {
  transcript: string;
  reply: string;
  wordMs: number;
}): Promise<TimedBackend> {
  let round: Round = {};
  const server = createServer((req, res) => {
    const arrived = performance.now();
    const since = () => performance.now() - arrived;
    void body(req).then((bytes) => {
      if (req.url === "/v1/audio/transcriptions") {
        res.once("finish", () => (round.stt ??= since()));
        return void res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ text: options.transcript }));
      }
      if (req.url === "/v1/audio/speech") return void speak(bytes, res, () => (round.tts ??= since()));
      if (req.url === "/v1/chat/completions") return stream(res, options, () => (round.firstSentence ??= since()));
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    times: () =>
      round.stt !== undefined && round.firstSentence !== undefined && round.tts !== undefined
        ? { stt_ms: round.stt, first_sentence_ms: round.firstSentence, tts_ms: round.tts }
        : undefined,
    reset: () => void (round = {}),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function speak(bytes: Buffer, res: ServerResponse, answered: () => void): Promise<void> {
  const { input } = JSON.parse(bytes.toString("utf8")) as { input: string };
  const wav = await speechWav(input);
  res.once("finish", answered);
  res.writeHead(200, { "content-type": "audio/wav" }).end(wav);
}

/** The reply a word every `wordMs`, as a model streams; `firstSentence` when the word ending a sentence is written. */
function stream(res: ServerResponse, options: { reply: string; wordMs: number }, firstSentence: () => void): void {
  const words = options.reply.split(/(?<= )/);
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(`data: ${JSON.stringify(chunk({ role: "assistant", content: "" }))}\n\n`);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent === words.length) {
      clearInterval(timer);
      return void res.end(`data: ${JSON.stringify(chunk({}, "stop"))}\n\ndata: [DONE]\n\n`);
    }
    const word = words[sent++]!;
    res.write(`data: ${JSON.stringify(chunk({ content: word }))}\n\n`, () => /[.!?]\s*$/.test(word) && firstSentence());
  }, options.wordMs);
}
