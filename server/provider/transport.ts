// HTTP through undici's `request` (the lowest-overhead client in Node). `timeout` and the stream idle timeout are
// decided on the injected Clock (timeouts.ts), so tests control them; undici's header and body timers are off.
// Two things undici does not do by itself, which the clock's abort relies on:
//  - an abort while the socket is still connecting is not acted on until the connect ends (a host that drops SYNs:
//    the kernel's ~130 s), so send() answers an abort itself, at once;
//  - the connect then goes on in the background, so it is bounded by `timeout` too (connectTimeout): the socket
//    attempt is given up instead of holding a pool slot for minutes.
import { Agent, request, type Dispatcher } from "undici";

/** One pool per connect timeout: settings with the same `timeout` share connections (keep-alive). */
const dispatchers = new Map<number, Agent>();

function dispatcherFor(connectTimeoutMs: number): Agent {
  // At least 1 ms: undici reads 0 as "no connect timeout".
  const bound = Math.max(1, Math.ceil(connectTimeoutMs));
  let agent = dispatchers.get(bound);
  if (!agent) {
    agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, connectTimeout: bound, keepAliveTimeout: 10_000 });
    dispatchers.set(bound, agent);
  }
  return agent;
}

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
  /** Bounds the TCP (and TLS) connect: the provider's `timeout`. */
  connectTimeoutMs: number;
}

/** Sends a request; rejects with the signal's reason as soon as it aborts, even mid-connect (see above). */
export function send(req: HttpRequest): Promise<HttpResponse> {
  const { signal } = req;
  const pending = request(req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body ?? null,
    signal,
    dispatcher: dispatcherFor(req.connectTimeoutMs),
  });
  return new Promise<HttpResponse>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (res) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) {
          // Answered after the abort already settled us: nobody will read this body.
          release(res.body);
          return;
        }
        resolve({ status: res.statusCode, headers: res.headers, body: res.body });
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
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

/** How long, and how many bytes, a body is still read after the stream said [DONE] (see drainAfterDone). */
export const AFTER_DONE_GRACE_MS = 1_000;
export const AFTER_DONE_MAX_BYTES = 64 * 1024;

/**
 * Reads what is left of a body after [DONE], in the background, so the connection goes back to undici's pool: a
 * body released before undici saw its end (the chunked terminator often arrives in a read of its own) costs the
 * socket. A backend that keeps the body open after [DONE] (keep-alive comments) is cut after a short grace or a
 * few KiB. The grace is on a real, unref'd timer, not the injected Clock: it bounds resource use, not anything a
 * caller sees, and `done` is already out when it runs.
 */
export function drainAfterDone(body: HttpResponse["body"], iterator: AsyncIterator<Buffer>): void {
  const timer = setTimeout(() => release(body), AFTER_DONE_GRACE_MS);
  timer.unref();
  void (async () => {
    let bytes = 0;
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        bytes += next.value.length;
        if (bytes > AFTER_DONE_MAX_BYTES) {
          release(body);
          return;
        }
      }
    } catch {
      // Released by the grace timer (or the peer reset): the socket is gone either way.
    } finally {
      clearTimeout(timer);
    }
  })();
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
