// The HTTP server's own limits and refusal handlers, as Fastify options (buildApp spreads them in).
//
// Limits (docs/events.md "HTTP errors and limits"): a connection that never finishes its headers, sends its body at a
// trickle or sits idle is closed, and the number of connections is capped, so slow clients cannot hold memory and
// file descriptors without bound. Every value leaves room for the longest legitimate request, a long-poll of
// GET /events (wait_ms up to 30 s): headersTimeout and requestTimeout only cover *receiving* the request (Node stops
// both clocks once the request is in), and the idle timeout, which does run while a long-poll waits silently, is
// longer than the longest wait.
import { LogController, type FastifyServerOptions } from "fastify";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { MAX_WAIT_MS } from "../../client/wire/routes/events.ts";
import { clientErrorHandler, frameworkErrors } from "./framework-errors.ts";

export interface ConnectionLimits {
  /** Time from a connection's (or a keep-alive request's) first byte to its last header. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body (an attachment upload on a slow link included). */
  requestTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed. Must exceed MAX_WAIT_MS. */
  idleTimeoutMs: number;
  /** How long a keep-alive connection may wait for its next request. */
  keepAliveTimeoutMs: number;
  /** How often Node checks the headers and request timeouts (its default, 30 s, would let them overrun). */
  timeoutCheckIntervalMs: number;
  /** Connections beyond this are closed as they arrive. */
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  // A body trickled in a byte at a time is cut here, as headers are at headersTimeoutMs. 60 s still carries the
  // largest attachment (assets.max_bytes, 10 MiB) at about 1.5 Mbit/s.
  requestTimeoutMs: 60_000,
  idleTimeoutMs: MAX_WAIT_MS + 30_000,
  // Above the 60 s idle timeout of common reverse proxies (nginx, ALB), so the proxy, not we, closes first.
  keepAliveTimeoutMs: 72_000,
  timeoutCheckIntervalMs: 1_000,
  maxConnections: defaultMaxConnections(),
};

/** Fastify options that bound connections and give every refusal the one error body (docs/errors.md "HTTP"). */
export function httpServerOptions(limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS): FastifyServerOptions {
  // Fastify's own request logging off: request-log.ts writes one line per request instead of its two.
  return {
    serverFactory: boundedServer(limits),
    frameworkErrors,
    clientErrorHandler,
    logController: new LogController({ disableRequestLogging: true }),
  };
}

/** A Node HTTP server with `limits` (with serverFactory, Fastify leaves the server's timeouts to us). */
function boundedServer(limits: ConnectionLimits) {
  return (handler: (request: IncomingMessage, response: ServerResponse) => void): Server => {
    const server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        requestTimeout: limits.requestTimeoutMs,
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
      },
      handler,
    );
    server.setTimeout(limits.idleTimeoutMs);
    server.maxConnections = limits.maxConnections;
    return server;
  };
}

/**
 * Half the process's open-file limit (each connection is a descriptor, and SQLite, the bridge link and backend
 * calls need theirs), at most 4,096; 1,024 where the limit cannot be read.
 */
function defaultMaxConnections(): number {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    if (soft === "unlimited") return 4_096;
    return Number(soft) > 0 ? Math.min(4_096, Math.max(64, Math.floor(Number(soft) / 2))) : 1_024;
  } catch {
    return 1_024;
  }
}
