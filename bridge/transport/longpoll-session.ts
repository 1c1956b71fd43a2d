// One Phoenix long-poll session: the PeerTransport of a Connection whose peer polls over HTTP instead of holding a
// WebSocket. Frames for the peer queue here until a poll takes them (all at once, in order); a poll with nothing
// queued waits up to the window. What is queued counts as the Connection's bufferedAmount, so a peer that stops
// polling meets the same slow-consumer bound as a WebSocket that stops reading, and memory stays bounded.
import { randomBytes } from "node:crypto";
import { after, type Clock } from "../clock.ts";
import type { PeerTransport } from "../socket/connection.ts";
import { framePayload } from "../protocol/ws-frame.ts";

/**
 * Session tokens carry this prefix, which a device token (base64url, no dots) never has: phoenix.js puts the session
 * token in the query as `token`, beside a device token an app may also pass as the socket param `token`.
 */
export const SESSION_TOKEN_PREFIX = "lp.";

/** What a poll answers: frames (200), nothing within the window (204), or the session is gone (410). */
export type PollOutcome = { status: 200; messages: string[] } | { status: 204 } | { status: 410 };

interface Waiter {
  answer(outcome: PollOutcome): void;
  cancelTimeout: () => void;
}

export class LongPollSession implements PeerTransport {
  /** 256 random bits: the token is the session's only credential. */
  readonly token = `${SESSION_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  private queue: string[] = [];
  private queuedBytes = 0;
  private corked = false;
  private waiter: Waiter | undefined;
  private ended = false;
  private readonly endListeners: Array<() => void> = [];

  /** A held poll's window runs on the bridge's clock. */
  constructor(private readonly clock: Clock) {}

  /** Runs `listener` once when the session ends. */
  onEnd(listener: () => void): void {
    this.endListeners.push(listener);
  }

  cork(): void {
    this.corked = true;
  }

  write(frame: Buffer): void {
    if (this.ended) return;
    const text = framePayload(frame).toString("utf8");
    this.queue.push(text);
    this.queuedBytes += text.length;
    if (!this.corked) this.deliver();
  }

  /** The end of a turn: everything written in it goes to a waiting poll as one answer. */
  uncork(): void {
    this.corked = false;
    this.deliver();
  }

  get bufferedAmount(): number {
    return this.queuedBytes;
  }

  get open(): boolean {
    return !this.ended;
  }

  /** Whether a poll is being held (a session with one is never idle). */
  get polling(): boolean {
    return this.waiter !== undefined;
  }

  /**
   * Ends the session (a close code has no meaning over long-poll): a held poll answers 410, so phoenix.js reconnects
   * at once and rejoins, as after a WebSocket close it did not start; later polls with this token find no session.
   */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue = [];
    this.queuedBytes = 0;
    this.answer({ status: 410 });
    for (const listener of this.endListeners) listener();
  }

  /** Takes what is queued now, or waits up to `windowMs` for frames. A newer poll ends an older one's wait (204). */
  poll(windowMs: number): Promise<PollOutcome> {
    if (this.ended) return Promise.resolve({ status: 410 });
    this.answer({ status: 204 });
    if (this.queue.length > 0) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      const cancelTimeout = after(this.clock, windowMs, () => this.answer({ status: 204 }));
      this.waiter = { answer: resolve, cancelTimeout };
    });
  }

  /** The peer went away while its poll was held (the request closed): its wait ends, frames stay for the next poll. */
  abandon(): void {
    this.answer({ status: 204 });
  }

  private deliver(): void {
    if (this.waiter && this.queue.length > 0) this.answer(this.take());
  }

  private take(): PollOutcome {
    const messages = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    return { status: 200, messages };
  }

  private answer(outcome: PollOutcome): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    waiter.cancelTimeout();
    waiter.answer(outcome);
  }
}
