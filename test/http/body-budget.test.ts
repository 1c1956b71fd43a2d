// docs/events.md H6-H9: the request-body bytes the server holds at once are bounded (server/http/body-budget.ts).
// Real servers on loopback: a flood of large declared bodies is refused unread with 503 server_busy while /health
// answers and the server's peak RSS stays bounded (a server in a child process, its RSS read from /proc); a person's
// share leaves room for the others; a chunked body counts a whole share; a body larger than the budget passes alone;
// and after a thousand mixed exchanges (direct, injected, run in-process as the relay does, aborted mid-body, refused
// by a later hook or by the budget) every byte is given back. Every wait is for an event (an answer, a close), never for a time.
import { fork, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../server/app.ts";
import { BodyBudget, type BodyBudgetLimits } from "../../server/http/body-budget.ts";
import { runInProcess } from "../../server/http/in-process-request.ts";
import { httpServerOptions } from "../../server/http/server-options.ts";
import { ADMIN_TOKEN, pairedDevice, startTestServer, type TestServer } from "../support/server.ts";
import { openSocket, parseResponse, type RawResponse } from "./raw-http.ts";

const KiB = 1024;
const MiB = 1024 * KiB;

let server: TestServer | undefined;
let app: FastifyInstance | undefined;
let child: ChildProcess | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  child?.disconnect();
  await app?.close();
  await server?.close();
  app = server = child = undefined;
});

interface Listening {
  port: number;
  budget: BodyBudget;
  /** Resolves once every exchange the server has seen so far has closed on its side. */
  settled(): Promise<void>;
}

async function listenWith(limits: BodyBudgetLimits): Promise<Listening> {
  server = await startTestServer();
  const budget = new BodyBudget(limits);
  app = buildApp(server.runtime.ctx, httpServerOptions(), { bodyBudget: budget });
  const closes: Promise<unknown>[] = [];
  app.server.on("request", (_request, response) => closes.push(once(response, "close")));
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    port: Number(new URL(address).port),
    budget,
    async settled() {
      await Promise.all(closes);
      // The budget's own 'close' listener may come after ours on the same event: one more turn of the loop.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

interface Sent {
  socket: Socket;
  /** The first response the server wrote, whole; undefined when the connection closed without one. */
  response: Promise<RawResponse | undefined>;
  /** Writes the rest of a declared body. */
  finish(): void;
}

/**
 * Opens a connection and sends a POST's headers declaring `declared` body bytes (or chunked when undefined), then
 * `sent` of them; the rest is written by `finish`.
 */
async function post(
  port: number,
  {
    path,
    token = ADMIN_TOKEN,
    declared,
    sent,
    body,
  }: { path: string; token?: string; declared?: number; sent: number; body?: Buffer },
): Promise<Sent> {
  const socket = await openSocket(port);
  sockets.push(socket);
  socket.on("error", () => undefined); // a reset after a refusal is expected
  const response = new Promise<RawResponse | undefined>((resolve) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const parsed = parseResponse(Buffer.concat(chunks));
      if (parsed && Buffer.byteLength(parsed.body) >= Number(parsed.headers["content-length"] ?? Infinity))
        resolve(parsed);
    });
    socket.on("close", () => resolve(parseResponse(Buffer.concat(chunks))));
  });
  const length = declared === undefined ? "Transfer-Encoding: chunked" : `Content-Length: ${declared}`;
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: audio/wav\r\n${length}\r\n\r\n`,
  );
  const bytes = body ?? Buffer.alloc(declared ?? sent, 1);
  if (sent > 0) socket.write(bytes.subarray(0, sent));
  return { socket, response, finish: () => socket.write(bytes.subarray(sent)) };
}

const TRANSCRIBE = "/audio/transcriptions";
const codeOf = (response: RawResponse | undefined) =>
  response && (JSON.parse(response.body) as { error?: { code: string } }).error?.code;

describe("the request-body budget", () => {
  it("refuses a flood of large bodies unread with 503 server_busy while /health answers and RSS stays bounded", async () => {
    child = fork(
      new URL("./support/body-budget-server.ts", import.meta.url).pathname,
      [String(16 * MiB), String(8 * MiB)],
      {
        execArgv: ["--import", "tsx"],
      },
    );
    const [{ port }] = (await once(child, "message")) as [{ port: number }];
    const peakMiB = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child!.pid}/status`, "utf8"))![1]) / 1024;
    // One recording in flight holds the caller's whole share (8 MiB, its first byte sent).
    const holder = await post(port, { path: TRANSCRIBE, declared: 8 * MiB, sent: 1 });
    const before = peakMiB();
    const body = Buffer.alloc(8 * MiB, 1);
    const flood = await Promise.all(
      Array.from({ length: 40 }, () =>
        post(port, { path: TRANSCRIBE, declared: body.length, sent: body.length, body }),
      ),
    );
    const answers = await Promise.all(flood.map((sent) => sent.response));
    for (const answer of answers) {
      expect(answer?.status).toBe(503);
      expect(answer?.headers["retry-after"]).toBe("1");
      expect(answer?.headers.connection).toBe("close");
      expect(JSON.parse(answer!.body)).toEqual({
        error: { code: "server_busy", message: expect.any(String), details: { retry_after: 1 } },
      });
    }
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    // 40 × 8 MiB = 320 MiB were sent; the server read none of it.
    expect(peakMiB() - before).toBeLessThan(64);
    holder.finish();
    expect(codeOf(await holder.response)).toBe("speech_not_configured");
  });

  it("keeps a person's share: the same person is refused, another is served, bodyless requests never refused", async () => {
    const { port, budget, settled } = await listenWith({ totalBytes: 64 * KiB, perCallerBytes: 32 * KiB });
    const ana = server!.runtime.ctx.people.create({ name: "Ana" });
    const { code } = server!.runtime.ctx.pairing.createCode(ana.id);
    const paired = server!.runtime.ctx.pairing.redeem(code, "Ana's phone");
    if (!paired.ok) throw new Error(paired.reason);
    const holder = await post(port, { path: TRANSCRIBE, declared: 32 * KiB, sent: 1 });
    const again = await post(port, { path: TRANSCRIBE, declared: KiB, sent: KiB });
    expect(codeOf(await again.response)).toBe("server_busy");
    const other = await post(port, { path: TRANSCRIBE, token: paired.device_token, declared: KiB, sent: KiB });
    expect(codeOf(await other.response)).toBe("speech_not_configured");
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/sessions`, { headers: auth })).status).toBe(200);
    expect(budget.inFlight).toBe(32 * KiB);
    holder.finish();
    expect(codeOf(await holder.response)).toBe("speech_not_configured");
    for (const socket of sockets) socket.destroy();
    await settled();
    expect(budget.inFlight).toBe(0);
  });

  it("serves a body larger than the whole budget when nothing else is in flight", async () => {
    const { port, budget, settled } = await listenWith({ totalBytes: 64 * KiB, perCallerBytes: 32 * KiB });
    const alone = await post(port, { path: TRANSCRIBE, declared: 200 * KiB, sent: 200 * KiB });
    expect(codeOf(await alone.response)).toBe("speech_not_configured");
    const device = pairedDevice(server!);
    const holder = await post(port, { path: TRANSCRIBE, token: device.device_token, declared: KiB, sent: 1 });
    const crowded = await post(port, { path: TRANSCRIBE, declared: 200 * KiB, sent: 200 * KiB });
    expect(codeOf(await crowded.response)).toBe("server_busy");
    holder.finish();
    await holder.response;
    for (const socket of sockets) socket.destroy();
    await settled();
    expect(budget.inFlight).toBe(0);
  });

  it("counts a chunked body as a whole person's share, above the 1 MiB limit of the routes that read their own", async () => {
    const { port, budget, settled } = await listenWith({ totalBytes: 8 * MiB, perCallerBytes: 4 * MiB });
    const chunked = await post(port, { path: TRANSCRIBE, sent: 0 });
    chunked.socket.write("5\r\nhello\r\n");
    const beside = await post(port, { path: TRANSCRIBE, declared: 1, sent: 1 });
    expect(codeOf(await beside.response)).toBe("server_busy");
    expect(budget.inFlight).toBe(4 * MiB);
    chunked.socket.write("0\r\n\r\n");
    expect(codeOf(await chunked.response)).toBe("speech_not_configured");
    for (const socket of sockets) socket.destroy();
    await settled();
    expect(budget.inFlight).toBe(0);
  });

  it("gives every byte back after 1,000 mixed exchanges: direct, injected, in-process, aborted, refused", async () => {
    const { port, budget, settled } = await listenWith({ totalBytes: 64 * KiB, perCallerBytes: 32 * KiB });
    const ana = server!.runtime.ctx.people.create({ name: "Ana" });
    const paired = server!.runtime.ctx.pairing.redeem(server!.runtime.ctx.pairing.createCode(ana.id).code, "tablet");
    if (!paired.ok) throw new Error(paired.reason);
    // Ana holds her share throughout, so the admin's larger bodies do not fit beside it.
    const holder = await post(port, { path: TRANSCRIBE, token: paired.device_token, declared: 32 * KiB, sent: 1 });
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const audio = { ...auth, "content-type": "audio/wav" };
    const seen = new Map<string, number>();
    const count = (kind: string, outcome: unknown) =>
      seen.set(`${kind} ${outcome}`, (seen.get(`${kind} ${outcome}`) ?? 0) + 1);
    const kinds = [
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}${TRANSCRIBE}`, {
          method: "POST",
          headers: audio,
          body: "a".repeat(KiB),
        });
        count("direct", ((await response.json()) as { error: { code: string } }).error.code);
      },
      async () => {
        // Refused by a later hook (the chat guard): the chat does not exist.
        const response = await app!.inject({
          method: "POST",
          url: "/sessions/nope/send",
          headers: auth,
          payload: { content: "hi" },
        });
        count("injected", response.statusCode);
      },
      async () => {
        const response = await runInProcess(app!, {
          method: "POST",
          url: TRANSCRIBE,
          headers: audio,
          body: "a".repeat(KiB),
        });
        count("in-process", response.statusCode); // speech_not_configured
      },
      async () => {
        const aborted = await post(port, { path: TRANSCRIBE, declared: 4 * KiB, sent: 100 });
        aborted.socket.destroy();
        count("aborted", "cut");
      },
      async () => {
        const refused = await post(port, { path: TRANSCRIBE, declared: 40 * KiB, sent: 40 * KiB });
        count("refused", codeOf(await refused.response));
      },
      async () => {
        const chunked = await post(port, { path: TRANSCRIBE, sent: 0 });
        count("chunked", codeOf(await chunked.response));
      },
    ];
    for (let i = 0; i < 1_000; i++) {
      await kinds[i % kinds.length]!();
      if (i % 50 === 49) for (const socket of sockets.splice(1)) socket.destroy();
    }
    expect(Object.fromEntries(seen)).toEqual({
      "direct speech_not_configured": 167,
      "injected 404": 167,
      "in-process 404": 167,
      "aborted cut": 167,
      "refused server_busy": 166,
      "chunked server_busy": 166,
    });
    holder.finish();
    expect(codeOf(await holder.response)).toBe("speech_not_configured");
    for (const socket of sockets.splice(0)) socket.destroy();
    await settled();
    expect(budget.inFlight).toBe(0);
  });
});
