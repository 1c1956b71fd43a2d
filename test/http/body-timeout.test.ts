// docs/events.md "Connection limits": a request body trickled in a byte at a time, each byte well inside the idle
// timeout, is still cut at the request timeout (408 in the error body, connection closed), as unfinished headers are
// at the headers timeout. The real app over loopback with short limits; the wait is for the close.
import type { FastifyInstance } from "fastify";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../server/app.ts";
import {
  DEFAULT_CONNECTION_LIMITS,
  httpServerOptions,
  type ConnectionLimits,
} from "../../server/http/server-options.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";
import { openSocket, parseResponse } from "./raw-http.ts";

let server: TestServer | undefined;
let app: FastifyInstance | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.destroy();
  await app?.close();
  await server?.close();
  app = server = socket = undefined;
});

const SHORT: ConnectionLimits = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 800,
  idleTimeoutMs: 20_000,
  keepAliveTimeoutMs: 1_000,
  timeoutCheckIntervalMs: 50,
  maxConnections: 50,
};

describe("request body timeout", () => {
  it("closes a connection whose body trickles in a byte at a time, with 408 request_timeout", async () => {
    server = await startTestServer();
    app = buildApp(server.runtime.ctx, httpServerOptions(SHORT));
    const port = Number(new URL(await app.listen({ host: "127.0.0.1", port: 0 })).port);
    socket = await openSocket(port);
    const chunks: Buffer[] = [];
    let bytesSent = 0;
    const closed = new Promise<void>((resolve) => socket!.on("close", () => resolve()));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.write(
      `POST /sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    );
    // One byte every 20 ms: never idle, never finished.
    const trickle = setInterval(() => {
      if (!socket!.destroyed) socket!.write(" ", () => void (bytesSent += 1));
    }, 20);
    await closed;
    clearInterval(trickle);
    expect(bytesSent).toBeGreaterThan(5); // it was trickling, not stalled, when it was cut
    const response = parseResponse(Buffer.concat(chunks))!;
    expect(response.status).toBe(408);
    expect(JSON.parse(response.body)).toEqual({ error: { code: "request_timeout", message: expect.any(String) } });
  });

  it("bounds a body by default as headers are, within a minute", () => {
    expect(DEFAULT_CONNECTION_LIMITS.requestTimeoutMs).toBeLessThanOrEqual(60_000);
  });
});
