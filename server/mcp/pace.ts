// How many messages a server may have handled per second (docs/tools.md "Safety", S3). Past the budget its stream is
// not read until the second is over: the pipe (or the socket) fills and the server waits. Nothing is dropped; a
// flooding server is slowed to a rate the service can spare, and its flood costs bounded CPU and memory.
// This is flow control of a pipe, like a socket's backpressure, not a delay the service decides: it runs on the
// monotonic clock and real timers, so a test's injected clock (which jumps) cannot turn it off.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";

export const MESSAGES_PER_SECOND = 1000;

export class MessagePace {
  private windowStart = -Infinity;
  private count = 0;

  constructor(private readonly perSecond = MESSAGES_PER_SECOND) {}

  /** 0 when one more message may be handled now (and counts it), else the milliseconds to wait first. */
  take(): number {
    const now = performance.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.count = 0;
    }
    if (this.count < this.perSecond) {
      this.count++;
      return 0;
    }
    return Math.max(1, 1000 - (now - this.windowStart));
  }
}

/** Waits `ms` of real time (see above). */
export function paceWait(ms: number): Promise<void> {
  return sleep(ms);
}
