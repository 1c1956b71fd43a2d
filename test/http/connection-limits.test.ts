// docs/events.md H2-H4: slow or idle connections are closed on the configured limits, the number of connections is
// capped, and a long-poll still outlives the header and request timeouts (they cover receiving the request only).
// Real server on loopback with short configured limits; every wait here is for an event (a close, an answer).
import type { FastifyInstance } from "fastify";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../server/app.ts";
import { MAX_WAIT_MS } from "../../client/wire/routes/events.ts";
import {
  DEFAULT_CONNECTION_LIMITS,
  httpServerOptions,
  type ConnectionLimits,
} from "../../server/http/server-options.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";
import { openSocket, parseResponse } from "./raw-http.ts";

let server: TestServer | undefined;
let app: FastifyInstance | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await app?.close();
  await server?.close();
  app = server = undefined;
});

const SHORT: ConnectionLimits = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  idleTimeoutMs: 20_000,
  keepAliveTimeoutMs: 1_000,
  timeoutCheckIntervalMs: 50,
  maxConnections: 50,
};

/** The real app over a test server's context, listening with `limits`. */
async function startBounded(limits: ConnectionLimits): Promise<{ port: number; base: string }> {
  server = await startTestServer();
  app = buildApp(server.runtime.ctx, httpServerOptions(limits));
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  return { port: Number(new URL(base).port), base };
}

/** Opens a socket, writes `bytes` (never completing the request) and resolves with what came back once it closed. */
async function slow(port: number, bytes: string): Promise<Buffer> {
  const socket = await openSocket(port);
  sockets.push(socket);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(Buffer.concat(chunks)));
    if (bytes) socket.write(bytes);
  });
}

const connections = () =>
  new Promise<number>((resolve) => app!.server.getConnections((_error, count) => resolve(count)));

describe("connection limits", () => {
  it("answers 408 in the error body and closes connections whose headers or body never finish", async () => {
    const { port } = await startBounded(SHORT);
    const [headers, body] = await Promise.all([
      slow(port, "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "),
      slow(
        port,
        `POST /sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a`,
      ),
    ]);
    for (const raw of [headers, body]) {
      const response = parseResponse(raw)!;
      expect(response.status).toBe(408);
      expect(JSON.parse(response.body)).toEqual({ error: { code: "request_timeout", message: expect.any(String) } });
    }
    expect(await connections()).toBe(0);
  });

  it("closes a connection that never sends a byte", async () => {
    const { port } = await startBounded(SHORT);
    await slow(port, "");
    expect(await connections()).toBe(0);
  });

  it("keeps a long-poll that has waited past the header and request timeouts, and answers it", async () => {
    const { port, base } = await startBounded(SHORT);
    const ctx = server!.runtime.ctx;
    const session = ctx.sessions.create().id; // a chat the admin's person may read (docs/people.md "Events")
    const since = ctx.events.latestId;
    const poll = fetch(`${base}/events?since_id=${since}&wait_ms=${MAX_WAIT_MS}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    while (ctx.events.commits.waiting === 0) await new Promise((r) => setImmediate(r));
    // A body that never arrives is cut at requestTimeout; the poll, older than that, must still be open.
    await slow(port, `POST /sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n`);
    expect(ctx.events.commits.waiting).toBe(1);
    ctx.events.publish({ type: "checkpoint", session_id: session });
    const response = await poll;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { events: Array<{ type: string }> }).events.map((e) => e.type)).toEqual([
      "checkpoint",
    ]);
  });

  it("closes connections beyond the cap at once and accepts again when one ends", async () => {
    const { port } = await startBounded({
      ...SHORT,
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
      maxConnections: 3,
    });
    const held = await Promise.all([0, 1, 2].map(() => openSocket(port)));
    sockets.push(...held);
    while ((await connections()) < 3) await new Promise((r) => setImmediate(r));
    expect((await slow(port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")).length).toBe(0); // dropped unanswered
    held[0]!.destroy();
    while ((await connections()) > 2) await new Promise((r) => setImmediate(r));
    const answer = parseResponse(
      await slow(port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
    );
    expect(answer?.status).toBe(200);
  });

  it("defaults leave a maximal long-poll room: the idle timeout exceeds the longest wait", () => {
    expect(DEFAULT_CONNECTION_LIMITS.idleTimeoutMs).toBeGreaterThan(MAX_WAIT_MS);
    expect(DEFAULT_CONNECTION_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs);
    expect(DEFAULT_CONNECTION_LIMITS.maxConnections).toBeGreaterThanOrEqual(64);
  });
});
