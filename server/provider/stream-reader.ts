// Reads an opened SSE response into deltas: bytes → SseParser → JSON.parse → Accumulator. Only a failure of the
// body itself (a broken connection, an idle stall after the first byte) is a MidStreamError, which the provider may
// recover from (stream_recovery). Anything the backend *said* (errors, malformed or oversized events) is a
// ProviderError, and so is any other exception while handling a chunk: re-issuing the request would only repeat it.
import type { Clock } from "../clock.ts";
import type { Accumulator } from "./accumulator.ts";
import { aborted, type OpenedResponse } from "./attempt.ts";
import { redact } from "./debug.ts";
import { ProviderError, errorMessageOf, excerpt, parseJsonOr } from "./errors.ts";
import { SseParser, type SseEvent } from "./sse.ts";
import { IdleWatchdog } from "./timeouts.ts";
import { drainAfterDone, release } from "./transport.ts";
import type { ProviderDelta, ProviderLog } from "./types.ts";

/** The stream broke after it began: eligible for stream recovery. */
export class MidStreamError extends Error {
  override name = "MidStreamError";
  constructor(
    readonly kind: "interrupted" | "idle",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  toProviderError(): ProviderError {
    return new ProviderError(this.kind === "idle" ? "stream_idle_timeout" : "stream_interrupted", this.message, {
      cause: this,
    });
  }
}

export interface StreamReadContext {
  clock: Clock;
  idleMs: number;
  callerSignal: AbortSignal;
  url: string;
  /** Set when debug_stream is on. */
  debug: { log: ProviderLog; secrets: string[] } | undefined;
}

/** Slice size of the first read until the first delta is out (see feedPending). */
const FIRST_SLICE_BYTES = 4096;

/**
 * One read's queue: received bytes fed to the parser, the events it parsed interpreted into deltas (`out`), and what
 * an event threw, held until the deltas before it are out.
 */
class EventQueue {
  readonly out: ProviderDelta[] = [];
  /** Received bytes not yet fed to the parser. */
  pending: Uint8Array | undefined;
  /** The stream said it is done ([DONE], a finish, an error). */
  finished = false;
  /** The first delta is out. */
  yielded = false;
  /** What an event of this read threw (an in-stream error, a bad chunk): raised once the deltas before it are out. */
  failure: { error: unknown } | undefined;
  private readonly events: SseEvent[] = [];
  private readonly parser = new SseParser((event) => this.events.push(event));
  private next = 0;

  constructor(
    first: Uint8Array | undefined,
    private readonly acc: Accumulator,
    private readonly ctx: StreamReadContext,
  ) {
    this.pending = first;
  }

  /** Events or bytes of this read are still queued. */
  get busy(): boolean {
    return this.next > 0 || this.pending !== undefined;
  }

  /** Feeds what is pending once the events before it are interpreted, then interprets. */
  step(): void {
    if (this.pending && this.next === 0) this.feedPending();
    this.drain();
  }

  /** The body ended: what the parser still holds is interpreted. */
  end(): void {
    this.parser.end();
    this.drain();
  }

  raiseFailure(): void {
    if (this.failure) throw this.failure.error;
  }

  /** Interprets queued events; before the first delta is out it stops at the first one (time to first delta). */
  private drain(): void {
    const { events } = this;
    while (this.next < events.length && !this.finished) {
      try {
        this.finished = handleEvent(events[this.next++]!, this.acc, this.out, this.ctx);
      } catch (error) {
        // Text parsed from the same network read as the error was seen by nobody yet: publish it first, so an
        // interrupted reply keeps everything the backend sent before its error.
        this.failure = { error };
        this.finished = true;
      }
      if (!this.yielded && this.out.length > 0) return;
    }
    if (this.next >= events.length || this.finished) {
      events.length = 0;
      this.next = 0;
    }
  }

  /** Feeds what is pending. Until the first delta is out, a large read is fed a slice at a time, so the first
   *  delta does not wait for the parse of a whole 64 KiB read (time to first delta); then reads go in whole. */
  private feedPending(): void {
    const bytes = this.pending!;
    if (!this.yielded && bytes.length > FIRST_SLICE_BYTES) {
      this.parser.feed(bytes.subarray(0, FIRST_SLICE_BYTES));
      this.pending = bytes.subarray(FIRST_SLICE_BYTES);
    } else {
      this.parser.feed(bytes);
      this.pending = undefined;
    }
  }
}

export async function* readStream(
  opened: OpenedResponse,
  acc: Accumulator,
  ctx: StreamReadContext,
): AsyncGenerator<ProviderDelta> {
  const queue = new EventQueue(opened.first, acc, ctx);
  const { out } = queue;
  const watchdog = new IdleWatchdog(ctx.clock, ctx.idleMs, () => opened.abort(new Error("idle")));
  let ended = false;
  try {
    for (;;) {
      queue.step();
      if (out.length > 0) {
        queue.yielded = true;
        yield* out;
        out.length = 0;
      }
      queue.raiseFailure();
      if (queue.finished) break;
      if (queue.busy) continue; // events or bytes of this read are still queued
      const chunk = await readBody(opened, watchdog, ctx);
      if (chunk.done) {
        ended = true;
        // A stream that just ends without [DONE] is complete (docs/provider.md "What real backends send").
        queue.end();
        if (out.length > 0) yield* out;
        queue.raiseFailure();
        break;
      }
      watchdog.touch();
      queue.pending = chunk.value;
    }
    // [DONE] ends the stream at once; the rest of the body is not awaited (a backend may keep the connection open
    // and send keep-alives after it, which would hold `done` back). It is read in the background instead, below,
    // so that the connection is kept when the body ends just after [DONE], as it almost always does.
  } catch (error) {
    if (error instanceof ProviderError || error instanceof MidStreamError) throw error;
    if (ctx.callerSignal.aborted) throw aborted();
    // Not a transport failure (readBody classifies those): a chunk the adapter could not handle (a stack overflow
    // on a deeply nested value, a bug). Ends the attempt; recovery would send the same request for the same chunk.
    throw new ProviderError(
      "invalid_chunk",
      `handling a stream chunk from ${ctx.url} failed: ${excerpt(String((error as Error)?.message ?? error))}`,
      { cause: error },
    );
  } finally {
    watchdog.stop();
    if (queue.finished && !queue.failure && !ended) drainAfterDone(opened.response.body, opened.iterator);
    else if (!ended) release(opened.response.body);
    opened.unlink();
  }
}

/** The next read of the body. Its failures are the transport's (a reset or closed socket, undici's errors, our
 *  idle abort): they become a MidStreamError (eligible for stream recovery), or `aborted` for the caller's abort. */
async function readBody(
  opened: OpenedResponse,
  watchdog: IdleWatchdog,
  ctx: StreamReadContext,
): Promise<IteratorResult<Buffer>> {
  try {
    return await opened.iterator.next();
  } catch (error) {
    if (ctx.callerSignal.aborted) throw aborted();
    if (watchdog.fired) {
      throw new MidStreamError(
        "idle",
        `the stream from ${ctx.url} sent nothing for ${ctx.idleMs / 1000}s after it began (stream_idle_timeout_seconds)`,
      );
    }
    throw new MidStreamError("interrupted", `the stream from ${ctx.url} broke mid-way: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Interprets one SSE event; true when the stream is finished ([DONE]). */
function handleEvent(event: SseEvent, acc: Accumulator, out: ProviderDelta[], ctx: StreamReadContext): boolean {
  const data = event.data;
  if (data === "[DONE]") return true;
  if (event.event === "error") {
    // Older llama.cpp: a non-standard `error:` field (or `event: error`) carrying the message.
    let message = data;
    try {
      message = errorMessageOf(JSON.parse(data)) ?? data;
    } catch {
      // plain text error
    }
    throw new ProviderError("backend_error", `the backend reported an error in the stream: ${excerpt(message)}`, {
      body: excerpt(data),
    });
  }
  const chunk = parseJsonOr(
    data,
    () =>
      new ProviderError(
        "invalid_chunk",
        `the backend sent a stream event that is not JSON: "${excerpt(data)}"; check that base_url points at a chat-completions server`,
        { body: excerpt(data) },
      ),
  );
  if (ctx.debug) ctx.debug.log.info({ chunk: redact(chunk, ctx.debug.secrets) }, "provider stream chunk");
  acc.applyChunk(chunk, out);
  return false;
}
