// The bridge's plain HTTP: GET /health, GET /metrics (Prometheus text), Phoenix's long-poll transport at
// /socket/longpoll, a share link's sealed blob at GET /shared/{token} (http/shared-route.ts), and the companion app's
// files for any other GET or HEAD. Everything else is 404.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BridgeMetrics } from "../metrics.ts";
import { SHARED_PATH_PREFIX } from "./shared-route.ts";

export const LONGPOLL_PATH = "/socket/longpoll";

export interface HttpRoutes {
  metrics: BridgeMetrics;
  /** GET /health's body (a cluster node asks Redis). */
  health(): Promise<Record<string, unknown>>;
  /** The app's files (http/static.ts); `path` is the request's path, still percent-encoded. */
  appFiles(request: IncomingMessage, response: ServerResponse, path: string): Promise<void>;
  /** GET /app-config.json's body for `?server_id=`, or for the one server whose app is served here; undefined: none. */
  appConfig(serverId: string | undefined): unknown;
  /** GET /shared/{token}: a share link's sealed blob (http/shared-route.ts); `path` is the request's path. */
  sharedBlob(request: IncomingMessage, response: ServerResponse, path: string): Promise<void>;
  /** Phoenix's long-poll transport (transport/longpoll.ts). */
  longPoll(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void>;
  /** Reports a handler that threw (the request is answered 500; the process goes on). */
  failed(error: unknown): void;
}

export function httpHandler(routes: HttpRoutes) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const url = parseTarget(request.url ?? "/");
    if (!url) return sendError(response, 400, "bad_request", "bad request target");
    const path = url.pathname;
    if (request.method === "GET" && path === "/metrics")
      return send(response, 200, "text/plain; version=0.0.4", routes.metrics.render());
    if (request.method === "GET" && path === APP_CONFIG_PATH)
      return appConfig(response, routes.appConfig(url.searchParams.get("server_id") ?? undefined));
    const work =
      request.method === "GET" && path === "/health"
        ? routes.health().then((body) => send(response, 200, "application/json", JSON.stringify(body)))
        : path === LONGPOLL_PATH
          ? routes.longPoll(request, response, url)
          : request.method === "GET" && path.startsWith(SHARED_PATH_PREFIX)
            ? routes.sharedBlob(request, response, path)
            : request.method === "GET" || request.method === "HEAD"
              ? routes.appFiles(request, response, path)
              : undefined;
    if (!work) return notFound(response, `${request.method} ${path}`);
    work.catch((error: unknown) => {
      routes.failed(error);
      if (!response.headersSent) sendError(response, 500, "internal_error", "the bridge failed to answer this request");
      else response.destroy();
    });
  };
}

export const APP_CONFIG_PATH = "/app-config.json";

/** The app config, revalidated on every load (a server's URLs may change with its next join); 404 when unknown. */
function appConfig(response: ServerResponse, config: unknown): void {
  if (config === undefined)
    return sendError(
      response,
      404,
      "route_not_found",
      "no app config here: no server whose app this bridge serves has joined (or several have: name one with ?server_id=)",
    );
  const body = JSON.stringify(config);
  response.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-cache",
  });
  response.end(body);
}

export function notFound(response: ServerResponse, what: string): void {
  sendError(response, 404, "route_not_found", `no route ${what}`);
}

/** The error body of docs/errors.md: `{"error": {"code", "message", "details"?}}`. */
export function sendError(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
  details?: unknown,
): void {
  send(
    response,
    status,
    "application/json",
    JSON.stringify({ error: { code, message, ...(details === undefined ? {} : { details }) } }),
  );
}

export function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  response.end(body);
}

/** The request target as a URL; undefined when it cannot parse (`GET http://[`): a 400, never a throw. */
function parseTarget(target: string): URL | undefined {
  try {
    return new URL(target, "http://bridge");
  } catch {
    return undefined;
  }
}
