// The HTTP side of the scripted backend: a node:http server on 127.0.0.1 that records every request and
// answers POST <prefix>/chat/completions from a FIFO of scenarios, GET <prefix>/models from a settable body,
// OpenAI's audio routes (audio.ts), POST <prefix>/embeddings (embeddings.ts), and anything else with an HTML 404 page (what a wrong base_url hits on a real web server).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodeParts, splitBytes } from "./encode.ts";
import type { PauseControl, RecordedRequest, Scenario } from "./scenarios.ts";
import { defaultTranscript, readTranscriptionForm, speechWav, type AudioAnswer } from "./audio.ts";
import { embeddingsAnswer } from "./embeddings.ts";

export interface ScriptedBackendOptions {
  port?: number;
  /** Path prefix the API lives under; `url` includes it. Default "/v1". */
  prefix?: string;
  /** Played when the queue is empty. Default: a 500 saying no scenario is left. */
  fallback?: Scenario;
  /** Body of GET <prefix>/models, or a scenario for it. Default: two models. */
  models?: unknown;
  /** How a paced stream (`delayMs`) waits between writes; real timers unless a test counts the waits. */
  sleep?: (ms: number) => Promise<void>;
}

export interface ScriptedBackend {
  /** Base URL to configure as base_url, e.g. http://127.0.0.1:40123/v1. */
  url: string;
  /** Every request received, in arrival order (chat completions and models). */
  requests: RecordedRequest[];
  /** Queues scenarios; each chat-completions request takes the next one. */
  script(...scenarios: Scenario[]): void;
  setFallback(scenario: Scenario | undefined): void;
  setModels(body: unknown): void;
  /** Queues answers of POST <prefix>/audio/transcriptions: a transcript, or a scenario (an error, a hang). */
  scriptTranscripts(...answers: AudioAnswer[]): void;
  /** Queues scenarios answering POST <prefix>/audio/speech instead of the spoken WAV. */
  scriptSpeech(...answers: Scenario[]): void;
  /** Queues scenarios answering POST <prefix>/embeddings instead of the deterministic vectors (embeddings.ts). */
  scriptEmbeddings(...answers: Scenario[]): void;
  /** Resolves once at least `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  /** Resolves with the control of the next stream that pauses (`pauseAfter`). */
  nextPause(): Promise<PauseControl>;
  /** Empties the queue and breaks streams still paused, so one failed test cannot leak into the next. */
  reset(): void;
  close(): Promise<void>;
}

const HTML_404 =
  "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>";
const DEFAULT_MODELS = {
  object: "list",
  data: [
    { id: "scripted-large", object: "model", owned_by: "scripted" },
    { id: "scripted-small", object: "model", owned_by: "scripted" },
  ],
};

export async function startScriptedBackend(options: ScriptedBackendOptions = {}): Promise<ScriptedBackend> {
  const prefix = options.prefix ?? "/v1";
  const queue: Scenario[] = [];
  const requests: RecordedRequest[] = [];
  const requestWaiters: Array<{ count: number; resolve: () => void }> = [];
  const pauses: PauseControl[] = [];
  const pauseWaiters: Array<(control: PauseControl) => void> = [];
  let fallback = options.fallback;
  let models: unknown = options.models ?? DEFAULT_MODELS;
  const transcripts: AudioAnswer[] = [];
  const speechAnswers: Scenario[] = [];
  const embeddingAnswers: Scenario[] = [];

  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const onPause = (control: PauseControl): void => {
    const waiter = pauseWaiters.shift();
    if (waiter) waiter(control);
    else pauses.push(control);
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const bytes = await readBody(req);
    const path = (req.url ?? "/").split("?")[0]!;
    const transcription = req.method === "POST" && path === `${prefix}/audio/transcriptions`;
    const body = transcription ? await readTranscriptionForm(req, bytes) : parseMaybeJson(bytes.toString("utf8"));
    requests.push({ method: req.method ?? "GET", path, headers: req.headers, body });
    for (const waiter of requestWaiters.filter((w) => requests.length >= w.count)) {
      requestWaiters.splice(requestWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    if (req.method === "POST" && path === `${prefix}/chat/completions`) {
      const scenario = queue.shift() ??
        fallback ?? {
          kind: "status",
          status: 500,
          body: { error: { message: "scripted backend: no scenario left in the queue" } },
        };
      return play(scenario, req, res, onPause, sleep);
    }
    if (transcription) {
      const answer = transcripts.shift() ?? defaultTranscript(body as Parameters<typeof defaultTranscript>[0]);
      const scenario = typeof answer === "string" ? ({ kind: "json", body: { text: answer } } as const) : answer;
      return play(scenario, req, res, onPause, sleep);
    }
    if (req.method === "POST" && path === `${prefix}/audio/speech`) {
      const input = (body as { input?: unknown } | undefined)?.input;
      const scenario = speechAnswers.shift() ?? {
        kind: "bytes" as const,
        contentType: "audio/wav",
        body: await speechWav(typeof input === "string" ? input : ""),
      };
      return play(scenario, req, res, onPause, sleep);
    }
    if (req.method === "POST" && path === `${prefix}/embeddings`) {
      const scenario = embeddingAnswers.shift() ?? ({ kind: "json", ...embeddingsAnswer(body) } as const);
      return play(scenario, req, res, onPause, sleep);
    }
    if (req.method === "GET" && path === `${prefix}/models`) {
      const scenario = isScenario(models) ? models : ({ kind: "json", body: models } as const);
      return play(scenario, req, res, onPause, sleep);
    }
    res.writeHead(404, { "content-type": "text/html" }).end(HTML_404);
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    script: (...scenarios) => void queue.push(...scenarios),
    setFallback: (scenario) => void (fallback = scenario),
    setModels: (body) => void (models = body),
    scriptTranscripts: (...answers) => void transcripts.push(...answers),
    scriptSpeech: (...answers) => void speechAnswers.push(...answers),
    scriptEmbeddings: (...answers) => void embeddingAnswers.push(...answers),
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => requestWaiters.push({ count, resolve })),
    nextPause: () => {
      const ready = pauses.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => pauseWaiters.push(resolve));
    },
    reset: () => {
      queue.length = 0;
      transcripts.length = 0;
      speechAnswers.length = 0;
      embeddingAnswers.length = 0;
      for (const control of pauses.splice(0)) control.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Sleep = (ms: number) => Promise<void>;

async function play(
  scenario: Scenario,
  req: IncomingMessage,
  res: ServerResponse,
  onPause: (c: PauseControl) => void,
  sleep: Sleep,
): Promise<void> {
  switch (scenario.kind) {
    case "json":
      res
        .writeHead(scenario.status ?? 200, { "content-type": "application/json", ...scenario.headers })
        .end(JSON.stringify(scenario.body));
      return;
    case "raw":
      res
        .writeHead(scenario.status ?? 200, {
          "content-type": scenario.contentType ?? "text/plain",
          ...scenario.headers,
        })
        .end(scenario.body);
      return;
    case "status":
      res
        .writeHead(scenario.status, { "content-type": "application/json", ...scenario.headers })
        .end(
          JSON.stringify(
            scenario.body ?? { error: { message: `scripted status ${scenario.status}`, code: scenario.status } },
          ),
        );
      return;
    case "hang":
      if (scenario.sendHeaders) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.flushHeaders();
      }
      scenario.onReceived?.();
      return; // the socket stays open until the client gives up or the backend closes
    case "bytes":
      res.writeHead(200, { "content-type": scenario.contentType, "cache-control": "no-cache" });
      await writeAll(res, scenario.writeSize ? [...chunksOf(scenario.body, scenario.writeSize)] : [scenario.body]);
      res.end();
      return;
    case "stream":
      return playStream(scenario, req, res, onPause, sleep);
  }
}

async function playStream(
  scenario: Scenario & { kind: "stream" },
  req: IncomingMessage,
  res: ServerResponse,
  onPause: (c: PauseControl) => void,
  sleep: Sleep,
): Promise<void> {
  res.writeHead(scenario.status ?? 200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    ...scenario.headers,
  });
  res.flushHeaders();
  if (scenario.firstByteDelayMs) await new Promise((r) => setTimeout(r, scenario.firstByteDelayMs));
  const encoded = encodeParts(scenario.parts, scenario.eol ?? "\n", scenario.done ?? true);
  const stopAt = scenario.pauseAfter ?? scenario.destroyAfter ?? encoded.length;
  const toWrites = (texts: string[]) =>
    scenario.writeSize ? splitBytes(texts.join(""), scenario.writeSize) : texts.map((t) => Buffer.from(t));
  const pace = { delayMs: scenario.delayMs ?? 0, sleep };
  await writeAll(res, toWrites(encoded.slice(0, stopAt)), pace);
  if (scenario.destroyAfter !== undefined) {
    setTimeout(() => req.socket.destroy(), 20);
    return;
  }
  if (scenario.pauseAfter !== undefined) {
    await new Promise<void>((resolve) =>
      onPause({
        destroy: () => {
          req.socket.destroy();
          resolve();
        },
        resume: () => {
          void writeAll(res, toWrites(encoded.slice(stopAt)), pace).then(
            () => res.end(),
            () => res.destroy(),
          );
          resolve();
        },
      }),
    );
    return;
  }
  res.end();
}

/**
 * Writes in order, waiting for drain: a byte-by-byte body must not buffer megabytes in memory. `delayMs` waits that
 * long before each write after the first (a paced stream for people to watch).
 */
async function writeAll(
  res: ServerResponse,
  writes: Buffer[],
  pace?: { delayMs: number; sleep: Sleep },
): Promise<void> {
  for (const [index, piece] of writes.entries()) {
    if (pace && pace.delayMs > 0 && index > 0) await pace.sleep(pace.delayMs);
    if (res.destroyed) return;
    if (!res.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done).off("close", done);
          resolve();
        };
        res.once("drain", done).once("close", done);
      });
    }
  }
}

function* chunksOf(body: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < body.length; i += size) yield body.subarray(i, i + size);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req
      .on("data", (c: Buffer) => chunks.push(c))
      .on("end", () => resolve(Buffer.concat(chunks)))
      .on("error", reject);
  });
}

function parseMaybeJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isScenario(value: unknown): value is Scenario {
  return (
    typeof value === "object" &&
    value !== null &&
    "kind" in value &&
    typeof (value as { kind: unknown }).kind === "string" &&
    !("data" in value)
  );
}
