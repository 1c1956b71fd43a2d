// HTTP through undici's `request` (the lowest-overhead client in Node). Its own timers are off: `timeout` and
// the stream idle timeout are decided on the injected Clock (timeouts.ts), so tests control them.
import { Agent, request, type Dispatcher } from "undici";

const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0, connectTimeout: 0, keepAliveTimeout: 10_000 });

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
}

export interface HttpRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export async function send(req: HttpRequest): Promise<HttpResponse> {
  const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body ?? null, signal: req.signal, dispatcher });
  return { status: res.statusCode, headers: res.headers, body: res.body };
}

export function header(headers: HttpResponse["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Lets go of a body we will not read (a retried 429 or status) without waiting for it. */
export function release(body: HttpResponse["body"]): void {
  // undici's body emits an AbortError when destroyed unread; nobody is listening any more, so swallow it.
  body.on("error", () => undefined);
  body.destroy();
}

const MAX_ERROR_BODY = 64 * 1024;

/** Reads at most MAX_ERROR_BODY bytes of a body (for error messages), then releases the rest. */
export async function readBounded(body: HttpResponse["body"]): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_ERROR_BODY) {
      release(body);
      break;
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}
