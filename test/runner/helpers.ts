// Shared helpers of the runner suites: a real runtime against the scripted backend, with a TestClock, and
// readers of what a request published (every event checked against the client's wire schema).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect } from "vitest";
import { coreEventSchema, type AnyEvent, type Message } from "../../client/wire/index.ts";
import type { ConfigInput } from "../../server/config/schema.ts";
import { INTERNAL_CHECKPOINT } from "../../server/events/event-store.ts";
import { chunk, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { TestClock } from "../provider/helpers.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { controls } from "./fixtures/controls.ts";

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures");

export interface RunnerServer extends TestServer {
  clock: TestClock;
}

/** `dataDir` reopens the data of an earlier server (a restart); by default a fresh temp dir. */
export async function startRunnerServer(
  backend: ScriptedBackend,
  config: ConfigInput = {},
  provider: Record<string, unknown> = {},
  dataDir?: string,
): Promise<RunnerServer> {
  const clock = new TestClock();
  const server = await startTestServer(
    {
      providers: {
        default: { provider: "reference_compatible", model: "scripted", base_url: backend.url, ...provider },
      },
      ...config,
    },
    { clock, configDir: FIXTURES, ...(dataDir ? { dataDir } : {}) },
  );
  return Object.assign(server, { clock });
}

export interface RunnerScope {
  /** This test's scripted backend. */
  readonly backend: ScriptedBackend;
  /** The server this test started last; throws before one is started. */
  readonly server: RunnerServer;
  /** Starts a runner server on this test's backend (startRunnerServer's other arguments), closed after the test. */
  start(config?: ConfigInput, provider?: Record<string, unknown>, dataDir?: string): Promise<RunnerServer>;
}

/**
 * For each test of the calling file: resets the tool fixtures' controls, starts a scripted backend and, when
 * `config` is given, a runner server with it; after the test closes every server it started (newest first, so a
 * restart's shared data dir is removed only once its live server is closed) and then the backend. It replaces the
 * `let backend; let server; beforeEach/afterEach` block each runner suite wrote out. Call it at the top of the file.
 */
export function useRunner(config?: ConfigInput): RunnerScope {
  let backend: ScriptedBackend | undefined;
  const servers: RunnerServer[] = [];
  const scope: RunnerScope = {
    get backend() {
      if (!backend) throw new Error("useRunner: the backend starts in beforeEach");
      return backend;
    },
    get server() {
      const server = servers.at(-1);
      if (!server) throw new Error("useRunner: start() a server first");
      return server;
    },
    async start(config = {}, provider = {}, dataDir) {
      const server = await startRunnerServer(scope.backend, config, provider, dataDir);
      servers.push(server);
      return server;
    },
  };
  beforeEach(async () => {
    controls.reset();
    backend = await startScriptedBackend();
    if (config) await scope.start(config);
  });
  afterEach(async () => {
    for (const server of servers.splice(0).reverse()) await server.close();
    await backend?.close();
    backend = undefined;
  });
  return scope;
}

export async function createSession(server: TestServer, body: Record<string, unknown> = {}): Promise<string> {
  const res = await server.request({ method: "POST", url: "/sessions", payload: body });
  expect(res.status).toBe(201);
  return res.json.session.id as string;
}

export async function send(server: TestServer, sessionId: string, body: Record<string, unknown>): Promise<string> {
  const res = await server.request({ method: "POST", url: `/sessions/${sessionId}/send`, payload: body });
  expect(res.status, res.text).toBe(202);
  return res.json.request_id as string;
}

/** Every stored event of a request, uncompacted, each one validated by the client's schema. */
export function eventsOf(server: TestServer, requestId: string): AnyEvent[] {
  const events = server.runtime.ctx.events.list({ sinceId: 0, requestId, limit: 100_000 }).events;
  for (const event of events) {
    expect(event.type).not.toBe(INTERNAL_CHECKPOINT);
    const parsed = coreEventSchema.safeParse(event);
    expect(parsed.success, `${event.type}: ${parsed.success ? "" : parsed.error.message}`).toBe(true);
  }
  return events;
}

/** Resolves once the request's request_completed is stored (woken by commits; the test timeout bounds it). */
export async function waitForEvent(
  server: TestServer,
  requestId: string,
  type = "request_completed",
): Promise<AnyEvent[]> {
  const store = server.runtime.ctx.events;
  for (;;) {
    const seen = store.latestId;
    const events = eventsOf(server, requestId);
    if (events.some((e) => e.type === type)) return events;
    await store.waitBeyond(seen, 60_000);
  }
}

export const typesOf = (events: AnyEvent[]) =>
  events.map((e) =>
    e.type === "assistant_message" || e.type === "tool_partial" ? `${e.type}:${String(e.phase)}` : e.type,
  );

/** The types with runs of partials collapsed to one "partial*", for order assertions. */
export const shapeOf = (events: AnyEvent[]) =>
  typesOf(events)
    .filter((t, i, all) => !(t === "partial" && all[i - 1] === "partial"))
    .map((t) => (t === "partial" ? "partial*" : t));

/** `shapeOf` one streamed assistant phase: its start, the partials, its end, the final answer and the checkpoint. */
export const STREAMED_PHASE = ["assistant_message:start", "partial*", "assistant_message:end", "final", "checkpoint"];
/** `shapeOf` one phase answered whole (a non-streaming send): the same without partials. */
export const WHOLE_PHASE = ["assistant_message:start", "assistant_message:end", "final", "checkpoint"];
/** How a cancelled request's events end. */
export const CANCELLED_END = ["request_cancelled", "request_completed"];

/** Makes a session, sends `body` to it and waits for the request's end: the session, the request and its events. */
export async function sendAndWait(server: TestServer, body: Record<string, unknown>) {
  const sid = await createSession(server);
  const rid = await send(server, sid, body);
  return { sid, rid, events: await waitForEvent(server, rid) };
}

export async function messagesOf(server: TestServer, sessionId: string): Promise<Message[]> {
  const res = await server.request({ method: "GET", url: `/sessions/${sessionId}/messages` });
  expect(res.status).toBe(200);
  return res.json.messages as Message[];
}

export const contentOfPartials = (events: AnyEvent[]) =>
  events
    .filter((e) => e.type === "partial")
    .map((e) => (e.message as { content: string }).content)
    .join("");

/** Chat-completions request bodies the backend recorded, in order. */
export function completionBodies(backend: ScriptedBackend): Array<{
  messages: Array<Record<string, unknown>>;
  tools?: Array<{ function: { name: string } }>;
  stream?: boolean;
}> {
  return backend.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.body as never);
}

/** Resolves with the request's events once `ready` accepts them (woken by commits). */
export async function waitUntil(
  server: TestServer,
  requestId: string,
  ready: (events: AnyEvent[]) => boolean,
): Promise<AnyEvent[]> {
  const store = server.runtime.ctx.events;
  for (;;) {
    const seen = store.latestId;
    const events = eventsOf(server, requestId);
    if (ready(events)) return events;
    await store.waitBeyond(seen, 60_000);
  }
}

/**
 * Scripts a reply streamed in `pieces` that the backend holds after the first `shown` of them, sends "hi" in a new
 * chat, and resolves once the shown pieces are on the log: a request caught mid-stream, for a test to cut or stop.
 */
export async function sendHeldReply(
  server: TestServer,
  backend: ScriptedBackend,
  pieces: string[],
  shown: number,
): Promise<{ sid: string; rid: string }> {
  backend.script({ kind: "stream", parts: pieces.map((content) => ({ data: chunk({ content }) })), pauseAfter: shown });
  const sid = await createSession(server);
  const rid = await send(server, sid, { content: "hi" });
  await waitUntil(server, rid, (events) => contentOfPartials(events) === pieces.slice(0, shown).join(""));
  return { sid, rid };
}

/**
 * Sends `content` in a new chat with a reply the backend holds before its first piece: a request that keeps running
 * until the test releases `paused`, for what may happen only while a request runs.
 */
export async function sendRunningRequest(scope: RunnerScope, content: string) {
  scope.backend.script({ kind: "stream", parts: [{ data: chunk({ content: "thinking" }) }], pauseAfter: 0 });
  const server = scope.server;
  const sid = await createSession(server);
  const rid = await send(server, sid, { content });
  const paused = await scope.backend.nextPause();
  return { server, sid, rid, paused };
}
