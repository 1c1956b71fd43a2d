// Runs the machine: feeds it inputs one at a time (inputs raised while effects run are queued, so a transition
// never interleaves with another), performs the effects it asks for, and publishes the status.
import { CursorExpiredResponseError, UnauthorizedError } from "../transport/errors.ts";
import type { EventReader } from "../transport/event-reader.ts";
import { backoffDelay, type Timers, startTimer, cancelTimer, type TimerHandle } from "../util/timers.ts";
import {
  initialSnapshot,
  sameStatus,
  statusOf,
  transition,
  type Effect,
  type MachineInput,
  type Snapshot,
} from "./machine.ts";
import type { EventSequencer } from "./sequencer.ts";

export interface DriverDeps {
  reader: EventReader;
  sequencer: EventSequencer;
  bridge: { connect(): void; close(): void };
  timers: Timers;
  retryDelaysMs: readonly number[];
  /** Long-poll window while the bridge is down (the server caps it at 30 s). */
  pollWaitMs: number;
  reloadSnapshots(): Promise<void>;
  cursorReset(): void;
  changed(snapshot: Snapshot): void;
  failed(error: unknown): void;
}

export class ConnectionDriver {
  private snapshot: Snapshot = initialSnapshot;
  private readonly queue: MachineInput[] = [];
  private running = false;
  private http: { kind: "catch_up" | "poll"; abort: AbortController } | undefined;
  private retry: TimerHandle | undefined;

  constructor(private readonly deps: DriverDeps) {}

  get current(): Snapshot {
    return this.snapshot;
  }

  send(input: MachineInput): void {
    this.queue.push(input);
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.queue.shift(); next; next = this.queue.shift()) this.step(next);
    } finally {
      this.running = false;
    }
  }

  private step(input: MachineInput): void {
    const before = this.snapshot;
    const result = transition(before, input);
    this.snapshot = { state: result.state, context: result.context };
    // Effects call out to app code (onReset, status subscribers): one that throws must not skip the effects after
    // it (a reset without its catch-up would be stuck) nor escape into the transport callback that sent the input.
    for (const effect of result.effects) this.guarded(() => this.run(effect));
    // Published when what the app sees changes: the state, or what is known of the server's link.
    if (!sameStatus(statusOf(before), statusOf(this.snapshot))) this.guarded(() => this.deps.changed(this.snapshot));
  }

  private run(effect: Effect): void {
    const { deps } = this;
    switch (effect.type) {
      case "catch_up":
        return this.startHttp("catch_up", (signal) =>
          deps.reader.catchUp(signal).then(() => this.send({ type: "caught_up" })),
        );
      case "start_poll":
        return this.startHttp("poll", (signal) => this.pollLoop(signal));
      case "stop_poll":
        if (this.http?.kind === "poll") this.stopHttp();
        return;
      case "connect_bridge":
        return deps.bridge.connect();
      case "trust_bridge":
        return deps.sequencer.trust();
      case "distrust_bridge":
        return deps.sequencer.distrust();
      case "schedule_retry":
        this.cancelRetry();
        this.retry = startTimer(
          deps.timers,
          () => this.send({ type: "retry_due" }),
          backoffDelay(deps.retryDelaysMs, effect.attempt),
        );
        return;
      case "cancel_retry":
        return this.cancelRetry();
      case "reset_cursor":
        deps.sequencer.reset();
        deps.reader.forgetEpoch();
        return deps.cursorReset();
      case "reload_snapshots":
        deps.reloadSnapshots().catch((error: unknown) => deps.failed(error));
        return;
      case "close":
        this.stopHttp();
        this.cancelRetry();
        // Aborts the fetches behind truncated pushes and forgets the pushes queued behind them: nothing after close.
        deps.sequencer.distrust();
        return deps.bridge.close();
    }
  }

  private guarded(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.deps.failed(error);
    }
  }

  private async pollLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.deps.reader.poll(this.deps.pollWaitMs, signal);
      if (!signal.aborted) this.send({ type: "polled" });
    }
  }

  /** One HTTP activity at a time: a new one aborts the old, whose late answers are then ignored. */
  private startHttp(kind: "catch_up" | "poll", work: (signal: AbortSignal) => Promise<void>): void {
    this.stopHttp();
    const abort = new AbortController();
    this.http = { kind, abort };
    work(abort.signal).catch((error: unknown) => {
      if (abort.signal.aborted) return;
      if (this.http?.abort === abort) this.http = undefined;
      this.send(inputFor(error));
      if (!(error instanceof CursorExpiredResponseError)) this.deps.failed(error);
    });
  }

  private stopHttp(): void {
    this.http?.abort.abort();
    this.http = undefined;
  }

  private cancelRetry(): void {
    if (this.retry !== undefined) cancelTimer(this.retry);
    this.retry = undefined;
  }
}

function inputFor(error: unknown): MachineInput {
  if (error instanceof CursorExpiredResponseError) return { type: "cursor_expired" };
  if (error instanceof UnauthorizedError) return { type: "auth_failed", reason: "unauthorized" };
  return { type: "http_failed" };
}
