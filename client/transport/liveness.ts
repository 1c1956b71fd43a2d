// Whether the bridge link is alive, decided on the injected timers. A link whose packets are dropped (Wi-Fi gone,
// a NAT that forgot the flow) never closes by itself, and phoenix's own heartbeat (30 s, then 30 s for the reply)
// kept the app "live" for up to a minute. So the library pings after `intervalMs` of silence and calls the link
// dead when nothing at all arrives within `timeoutMs` after that ping: any frame (an event, a reply) counts as a
// sign of life, so a busy link costs no pings.
import { cancelTimer, startTimer, type TimerHandle, type Timers } from "../util/timers.ts";

export interface LivenessTimings {
  intervalMs: number;
  timeoutMs: number;
}

export class LinkWatch {
  private pingTimer: TimerHandle | undefined;
  private deadline: TimerHandle | undefined;
  private watching = false;

  constructor(
    private readonly timers: Timers,
    private readonly timings: LivenessTimings,
    /** Sends a heartbeat; false when the link cannot send now. */
    private readonly ping: () => boolean,
    private readonly dead: () => void,
  ) {}

  /** The link opened: watch it. */
  start(): void {
    this.watching = true;
    this.heard();
  }

  /** The link closed (or we gave up on it): nothing to watch until it opens again. */
  stop(): void {
    this.watching = false;
    this.clear();
  }

  /** Something arrived: the link is alive; the next ping waits for another interval of silence. */
  heard(): void {
    if (!this.watching) return;
    this.clear();
    this.pingTimer = startTimer(this.timers, () => this.probe(), this.timings.intervalMs);
  }

  private probe(): void {
    this.pingTimer = undefined;
    this.ping();
    this.deadline = startTimer(
      this.timers,
      () => {
        this.deadline = undefined;
        this.stop();
        this.dead();
      },
      this.timings.timeoutMs,
    );
  }

  private clear(): void {
    if (this.pingTimer !== undefined) cancelTimer(this.pingTimer);
    if (this.deadline !== undefined) cancelTimer(this.deadline);
    this.pingTimer = undefined;
    this.deadline = undefined;
  }
}
