// The HTTP API through the bridge (docs/client.md "Route choice"): a call becomes an `api` push on the events
// channel, and the bridge's reply ({status, body} or {reason}) becomes what HttpApi would have answered: the parsed
// body, a ResponseError for a non-2xx, or a RelayError (a NetworkError: the server could not be asked) for a reason.
// A long-poll is never relayed (the bridge refuses wait_ms): its wait_ms is dropped, and an empty page is held
// until the bridge pushes an event or the window ends, since the live channel is the wait.
import type { z } from "zod";
import { errorBodySchema } from "../wire/errors.ts";
import { relayAnswerSchema, relayErrorReasonSchema, type RelayAnswer, type RelayErrorReason } from "../wire/frames.ts";
import { base64ToBytes } from "../util/base64.ts";
import { cancelTimer, startTimer, type TimerHandle, type Timers } from "../util/timers.ts";
import { responseErrorFrom, NetworkError, ProtocolError } from "./errors.ts";
import { encodeQuery, isBinaryBody, type Requester, type RequestOptions } from "./http.ts";

/** The bridge's answer to one push (BridgeConnection.push). */
export type PushReply = { status: "ok" | "error" | "timeout" | "closed"; response: unknown };

export interface RelayChannel {
  push(event: string, payload: object, timeoutMs: number): Promise<PushReply>;
}

/** The bridge could not get an answer from the server: `reason` is the bridge's, or `timeout`/`closed` locally. */
export class RelayError extends NetworkError {
  constructor(
    readonly reason: RelayErrorReason | "closed" | "protocol",
    message: string,
  ) {
    super(message);
  }
}

/** Pending long-poll windows over the relay, released by the next bridge push. */
export class PushWaiter {
  private readonly waiting = new Set<() => void>();

  constructor(private readonly timers: Timers) {}

  /** A bridge push arrived: every window ends now. */
  pushed(): void {
    for (const wake of [...this.waiting]) wake();
  }

  /** Resolves on the next push, after `ms`, or when `signal` aborts. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiting.delete(done);
        cancelTimer(handle);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const handle = startTimer(this.timers, done, ms);
      this.waiting.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

export class RelayApi implements Requester {
  constructor(
    private readonly channel: RelayChannel,
    private readonly waiter: PushWaiter,
    /** How long a push waits for the bridge's reply; above the bridge's own timeout (30 s) so its `timeout` wins. */
    private readonly timeoutMs = 35_000,
  ) {}

  async request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    options: RequestOptions = {},
  ): Promise<z.infer<S>> {
    if (isBinaryBody(options.body))
      throw new ProtocolError(`${method} ${path}: a body of bytes cannot go through the relay; send it in parts`);
    const { wait_ms: waitMs, ...query } = options.query ?? {};
    const payload = {
      method,
      path: path + encodeQuery(query),
      ...(options.body === undefined ? {} : { body: options.body }),
    };
    const answer = await this.ask(payload, options.signal);
    if (answer.status < 200 || answer.status > 299) {
      const errorBody = errorBodySchema.safeParse(answer.body);
      throw responseErrorFrom(answer.status, answer.body, errorBody.success ? errorBody.data : undefined);
    }
    const body = options.expect === "bytes" ? binaryOf(answer) : answer.body;
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      throw new ProtocolError(`${method} ${path} (relayed): unexpected answer: ${parsed.error.message}`);
    if (typeof waitMs === "number" && waitMs > 0 && isEmptyPage(parsed.data))
      await this.waiter.wait(waitMs, options.signal);
    return parsed.data;
  }

  private async ask(payload: { method: string; path: string }, signal: AbortSignal | undefined): Promise<RelayAnswer> {
    if (signal?.aborted) throw new NetworkError(`${payload.method} ${payload.path} (relayed): aborted`);
    let onAbort = () => {};
    const aborted = new Promise<PushReply>((resolve) => {
      onAbort = () => resolve({ status: "closed", response: {} });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    let reply: PushReply;
    try {
      reply = await Promise.race([this.channel.push("api", payload, this.timeoutMs), aborted]);
    } finally {
      // The poll loop and the sequencer's repairs reuse one signal for many calls: each removes its own listener, also
      // when the push itself failed (a sealed push whose crypto could not load), or they would pile up on it.
      signal?.removeEventListener("abort", onAbort);
    }
    const where = `${payload.method} ${payload.path} (relayed)`;
    if (reply.status === "ok") {
      const answer = relayAnswerSchema.safeParse(reply.response);
      if (!answer.success) throw new RelayError("protocol", `${where}: the bridge's answer is not understood`);
      return answer.data;
    }
    if (reply.status === "error") {
      const reason = relayErrorReasonSchema.safeParse((reply.response as { reason?: unknown } | null)?.reason);
      throw new RelayError(
        reason.success ? reason.data : "protocol",
        `${where}: ${reason.success ? reason.data : "refused"}`,
      );
    }
    throw new RelayError(
      reply.status === "timeout" ? "timeout" : "closed",
      `${where}: ${signal?.aborted ? "aborted" : reply.status}`,
    );
  }
}

function binaryOf(answer: RelayAnswer): unknown {
  if (answer.body_encoding !== "base64" || typeof answer.body !== "string") return answer.body;
  return { media_type: answer.content_type ?? "application/octet-stream", bytes: base64ToBytes(answer.body) };
}

function isEmptyPage(body: unknown): boolean {
  const events = (body as { events?: unknown } | null)?.events;
  return Array.isArray(events) && events.length === 0;
}
