// The bridge's plain HTTP: GET /health and GET /metrics (Prometheus text). Everything else is 404.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BridgeMetrics } from "../metrics.ts";

export function httpHandler(metrics: BridgeMetrics) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method === "GET" && path === "/health") return send(response, 200, "application/json", JSON.stringify({ ok: true }));
    if (request.method === "GET" && path === "/metrics") return send(response, 200, "text/plain; version=0.0.4", metrics.render());
    send(response, 404, "application/json", JSON.stringify({ error: { code: "route_not_found", message: `no route ${request.method} ${path}` } }));
  };
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  response.end(body);
}
