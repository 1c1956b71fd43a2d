// Runs one request through the Fastify app in this process, without a socket: how the relay runs an app's call
// (server/forwarder/api-relay.ts). Fastify's own router (`app.routing`, its public entry for a request) gets a request
// and a response made here, so routing, hooks (auth, CORS, the request log), validation, serialization and error
// bodies are exactly the app's over HTTP. Fastify's `inject` does the same through light-my-request, whose request and
// response are Node's whole IncomingMessage/ServerResponse machinery (header rendering, writes to a null socket, one
// setImmediate per write): about three times this one's CPU per call, most of the server's cost of a relayed call.
//
// The response is a real Writable, so a route that answers with a stream (the app's files, @fastify/static) is piped
// into it like into a socket; test/relay/in-process-request.test.ts checks the answers against `inject`'s.
//
// A relayed call's device is handed over as a relay pass set on the request object under a symbol (RELAY_PASS), as
// fastify keeps request-scoped facts: nothing that arrives over HTTP can carry it, and no header is parsed back.
import { EventEmitter } from "node:events";
import { Readable, Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RelayPass } from "../auth/caller.ts";

const RELAY_PASS = Symbol("relay pass");

/** The relay pass an in-process request was given (checked by the auth hook, server/http/auth.ts), if any. */
export function relayPassOf(raw: IncomingMessage): RelayPass | undefined {
  return (raw as IncomingMessage & { [RELAY_PASS]?: RelayPass })[RELAY_PASS];
}

export interface InProcessRequest {
  method: string;
  /** Path and query string. */
  url: string;
  headers: Record<string, string>;
  /** The body as sent over HTTP (its content type in `headers`). */
  body?: string;
  /** The device the bridge relayed the call for (server/forwarder/api-relay.ts). */
  relayed?: RelayPass;
}

export interface InProcessResponse {
  statusCode: number;
  headers: Record<string, number | string | string[] | undefined>;
  body: Buffer;
}

/** What a request's `socket` tells Fastify (request.ip, request.protocol): a loopback peer, not encrypted. One per
 *  request, as a socket is: whatever listens on it goes with the request. */
function loopbackPeer(): EventEmitter {
  return Object.assign(new EventEmitter(), {
    remoteAddress: "127.0.0.1",
    remotePort: 0,
    encrypted: false,
    destroyed: false,
  });
}

/** The request Fastify reads: a one-chunk stream when there is a body (the content-type parsers read it so). */
function incoming(request: InProcessRequest): IncomingMessage {
  const headers: Record<string, string> = { host: "localhost", ...lowerCased(request.headers) };
  let stream: Readable | EventEmitter;
  if (request.body === undefined) {
    stream = new EventEmitter();
  } else {
    const body = Buffer.from(request.body);
    headers["content-length"] = String(body.length);
    stream = new Readable({
      read() {
        this.push(body);
        this.push(null);
      },
    });
  }
  return Object.assign(stream, {
    method: request.method,
    url: request.url,
    headers,
    socket: loopbackPeer(),
    httpVersion: "1.1",
    httpVersionMajor: 1,
    httpVersionMinor: 1,
    aborted: false,
    complete: true,
    [RELAY_PASS]: request.relayed,
  }) as unknown as IncomingMessage;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** The response Fastify writes: status, headers and body collected, the parts of ServerResponse Fastify uses. */
class CollectedResponse extends Writable {
  statusCode = 200;
  statusMessage = "";
  headersSent = false;
  readonly chunks: Buffer[] = [];
  private readonly headerValues: Record<string, number | string | string[] | undefined> = Object.create(null);

  setHeader(name: string, value: number | string | readonly string[]): this {
    if (this.headersSent)
      throw Object.assign(new Error("Cannot set headers after they are sent"), { code: "ERR_HTTP_HEADERS_SENT" });
    this.headerValues[name.toLowerCase()] = Array.isArray(value)
      ? [...(value as string[])]
      : (value as number | string);
    return this;
  }

  getHeader(name: string): number | string | string[] | undefined {
    return this.headerValues[name.toLowerCase()];
  }

  getHeaders(): Record<string, number | string | string[] | undefined> {
    return { ...this.headerValues };
  }

  getHeaderNames(): string[] {
    return Object.keys(this.headerValues);
  }

  hasHeader(name: string): boolean {
    return name.toLowerCase() in this.headerValues;
  }

  removeHeader(name: string): void {
    delete this.headerValues[name.toLowerCase()];
  }

  writeHead(
    statusCode: number,
    reasonOrHeaders?: string | Record<string, number | string | string[]>,
    maybeHeaders?: Record<string, number | string | string[]>,
  ): this {
    const headers = typeof reasonOrHeaders === "object" ? reasonOrHeaders : maybeHeaders;
    this.statusCode = statusCode;
    if (typeof reasonOrHeaders === "string") this.statusMessage = reasonOrHeaders;
    for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) this.setHeader(name, value);
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    this.headersSent = true;
  }

  addTrailers(): void {
    // Trailers have no place in a relayed answer ({status, body}); Fastify only adds them when a route asks.
  }

  override _write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.headersSent = true;
    this.chunks.push(typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.headersSent = true;
    callback();
  }

  /** Destroyed (a route failed after its headers): 'close' without 'error', as a ServerResponse whose socket is
   *  destroyed, so the onResponse hooks do not log a request that never completed. runInProcess rejects on it. */
  override _destroy(_error: Error | null, callback: (error?: Error | null) => void): void {
    callback(null);
  }
}

/** Runs `request` through `app` and resolves with its answer; rejects when the response is destroyed unfinished. */
export function runInProcess(
  app: Pick<FastifyInstance, "routing">,
  request: InProcessRequest,
): Promise<InProcessResponse> {
  return new Promise((resolve, reject) => {
    const response = new CollectedResponse();
    response.once("finish", () =>
      resolve({
        statusCode: response.statusCode,
        headers: response.getHeaders(),
        body: Buffer.concat(response.chunks),
      }),
    );
    response.once("close", () => {
      if (!response.writableFinished) reject(new Error("the response was destroyed before it was complete"));
    });
    // Nothing Fastify does should make it emit 'error' (its destroy does not, above); a listener keeps a stray one
    // from ending the process, and its 'close' rejects.
    response.on("error", () => undefined);
    app.routing(incoming(request), response as unknown as ServerResponse);
  });
}
