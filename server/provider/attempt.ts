// One logical request's pre-stream phase (docs/provider.md "Retry rules" 2-5 and 7): pace, send, and either return a
// usable response or retry 429s, configured statuses and timeouts on one shared attempt counter. Retried bodies
// are released unread. Every wait is on the injected clock; every retry is announced as a `retry` delta.
import { ProviderError, statusError } from "./errors.ts";
import type { PacingRegistry } from "./pacing.ts";
import { parseRetryAfter, retryDelayMs, type PreStreamFailure } from "./retry.ts";
import type { ProviderSettings } from "./settings.ts";
import { Deadline } from "./timeouts.ts";
import { header, readBounded, release, send, type HttpResponse } from "./transport.ts";
import type { ProviderDeps, ProviderDelta } from "./types.ts";

export interface CallContext {
  settings: ProviderSettings;
  deps: ProviderDeps;
  pacing: PacingRegistry;
  url: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  signal: AbortSignal;
  /** The pre-stream attempt counter, shared by every mechanism for the whole call. */
  attempt: number;
}

/** A 2xx response whose first bytes (stream) or whole body (non-stream) arrived within `timeout`. */
export interface OpenedResponse {
  response: HttpResponse;
  contentType: string;
  /** Aborts the underlying request (idle watchdog, early end). */
  abort: (reason: Error) => void;
  /** The request's own signal: the caller's signal or our abort. */
  signal: AbortSignal;
  /** Stops forwarding the caller's abort to this request; call once the response is finished with. */
  unlink: () => void;
  iterator: AsyncIterator<Buffer>;
  /** Stream: the first chunk (undefined if the body ended empty). Non-stream: undefined. */
  first: Buffer | undefined;
  /** Non-stream (or a stream answered with JSON): the whole body. */
  text: string | undefined;
}

type Outcome = { ok: OpenedResponse } | { failure: PreStreamFailure; error: ProviderError };

export async function* openWithRetries(call: CallContext): AsyncGenerator<ProviderDelta, OpenedResponse> {
  for (;;) {
    const outcome = await attemptOnce(call);
    if ("ok" in outcome) return outcome.ok;
    const delay = retryDelayMs(call.settings, outcome.failure, call.attempt);
    if (delay === undefined) throw outcome.error;
    const delta: ProviderDelta = {
      type: "retry",
      attempt: call.attempt,
      reason: outcome.failure.kind,
      delay_ms: delay,
    };
    if (outcome.failure.kind === "status") delta.status = outcome.failure.status;
    yield delta;
    call.attempt += 1;
    try {
      await call.deps.clock.sleep(delay, call.signal);
    } catch {
      throw aborted();
    }
  }
}

async function attemptOnce(call: CallContext): Promise<Outcome> {
  const { clock } = call.deps;
  try {
    await call.pacing.acquire(call.settings.base_url, call.settings.min_request_interval_seconds, clock, call.signal);
  } catch {
    throw aborted();
  }
  // The request's signal follows the caller's by a listener rather than AbortSignal.any, which costs tens of
  // microseconds per call (weak references, finalization) before the request is sent (time to first delta).
  const controller = new AbortController();
  const signal = controller.signal;
  const caller = call.signal;
  const forward = (): void => controller.abort(caller.reason);
  if (caller.aborted) forward();
  else caller.addEventListener("abort", forward, { once: true });
  const unlink = (): void => caller.removeEventListener("abort", forward);
  let handedOver = false;
  const deadline = new Deadline(clock, call.settings.timeout * 1000, () => controller.abort(new Error("timeout")));
  try {
    const response = await send({
      url: call.url,
      method: "POST",
      headers: call.headers,
      body: call.body,
      signal,
      connectTimeoutMs: call.settings.timeout * 1000,
    });
    const failure = retryableFailure(call, response);
    if (failure) {
      // Rule 3: decided on the status line alone; the body is released, not read.
      if (retryDelayMs(call.settings, failure, call.attempt) !== undefined) {
        release(response.body);
        return { failure, error: new ProviderError("http_status", `HTTP ${response.status}`) };
      }
    }
    const contentType = header(response.headers, "content-type") ?? "";
    if (response.status < 200 || response.status >= 300) {
      const text = await readBounded(response.body);
      throw statusError(response.status, call.url, text, contentType);
    }
    const iterator = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const opened: OpenedResponse = {
      response,
      contentType,
      abort: (reason) => controller.abort(reason),
      signal,
      unlink,
      iterator,
      first: undefined,
      text: undefined,
    };
    if (call.stream && !/json|html/i.test(contentType)) {
      const next = await iterator.next();
      opened.first = next.done ? undefined : next.value;
      handedOver = true; // the stream reader unlinks when it is done
    } else {
      opened.text = await readAll(response, iterator, call.url);
    }
    return { ok: opened };
  } catch (error) {
    return failedAttempt(call, deadline.expired, error);
  } finally {
    deadline.cancel();
    if (!handedOver) unlink();
  }
}

/** An attempt that got no usable response: a timeout before streaming is retryable; anything else is thrown. */
function failedAttempt(call: CallContext, timedOut: boolean, error: unknown): Outcome {
  if (call.signal.aborted) throw aborted();
  if (timedOut) {
    const seconds = call.settings.timeout;
    return {
      failure: { kind: "timeout" },
      error: new ProviderError(
        "timeout",
        `no response from ${call.url} within timeout (${seconds}s) before streaming began; check that the server is running and reachable, or raise timeout / configure retry_on_timeout`,
      ),
    };
  }
  if (error instanceof ProviderError) throw error;
  throw new ProviderError(
    "connection",
    `cannot reach ${call.url}: ${(error as Error).message}; check base_url and that the server is running`,
    { cause: error },
  );
}

function retryableFailure(call: CallContext, response: HttpResponse): PreStreamFailure | undefined {
  if (response.status === 429) {
    const now = call.deps.clock.now();
    return {
      kind: "rate_limit",
      retryAfterMs: parseRetryAfter(
        header(response.headers, "retry-after"),
        header(response.headers, "retry-after-ms"),
        now,
      ),
    };
  }
  if (call.settings.retry_on_status[String(response.status)] !== undefined)
    return { kind: "status", status: response.status };
  return undefined;
}

/**
 * The most bytes of a whole (non-streamed) body kept in memory. A completion is a few KiB to a few MiB (long
 * replies, inline base64 images); JSON.parse then needs several times the text. Without a bound, a backend that
 * never ends its body grows the heap until the process dies.
 */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** A whole body, refused (and released at once, unread) when it passes MAX_BODY_BYTES. */
async function readAll(response: HttpResponse, iterator: AsyncIterator<Buffer>, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    size += next.value.length;
    if (size > MAX_BODY_BYTES) {
      release(response.body);
      throw new ProviderError(
        "invalid_response",
        `the backend's reply from ${url} is larger than ${MAX_BODY_BYTES / (1024 * 1024)} MiB; stopped reading. Check that base_url points at a chat-completions server`,
      );
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function aborted(): ProviderError {
  return new ProviderError("aborted", "the request was cancelled");
}
