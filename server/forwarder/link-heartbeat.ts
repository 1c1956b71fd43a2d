// The bridge link's heartbeat (docs/bridge.md "Server status", B172, B180): every period of an open link a phoenix
// heartbeat goes out, and one still unanswered when the next is due means the link is dead. phoenix.js has the same
// heartbeat, but it counts the period in wall-clock time and judges it in the timers phase of the event loop, before
// the poll phase reads the socket: a process held up longer than the period (a long GC, a busy turn, a loaded
// machine that left it without a core) dropped a live link whose answer was waiting, or could not be made, while the
// process stood still (B172's load flake). Here the period is counted in steps of a fifth of it, and a step the
// process was held through counts as one step whatever it lasted; the verdict waits for the socket's waiting input
// to be read. The clock is a real one in production and every test server alike (a link must beat while a test's
// server clock stands still); B180 injects a manual one.
import type { Socket } from "phoenix";
import type { Clock } from "../clock.ts";
import { TurnCorkedWebSocket } from "./turn-corked-websocket.ts";

/** The link's WebSocket with phoenix's own heartbeat off (phoenix skips it for a transport that says so). */
export class HeartbeatOffTransport extends TurnCorkedWebSocket {
  readonly skipHeartbeat = true;
}

/** The steps a period is counted in: a held process loses at most one of them. */
export const HEARTBEAT_STEPS = 5;

/** Resolves after the poll phase of the current loop turn: what already waits in a socket has been read by then. */
const afterPendingInput = () => new Promise<void>((resolve) => setImmediate(resolve));

export class LinkHeartbeat {
  /** Ends the current open link's beats (it closed, or a new one opened). */
  private beating: AbortController | undefined;
  /** The ref of the heartbeat sent and not answered yet. */
  private unanswered: string | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly clock: Clock,
    private readonly periodMs: number,
    /** The heartbeat went unanswered: the link is to be dropped and opened again. */
    private readonly dead: () => void,
  ) {
    socket.onOpen(() => this.start());
    socket.onClose(() => this.stop());
    socket.onMessage((message) => {
      const { topic, ref } = message as { topic?: unknown; ref?: unknown };
      if (topic === "phoenix" && ref === this.unanswered) this.unanswered = undefined;
    });
  }

  stop(): void {
    this.beating?.abort();
    this.beating = undefined;
    this.unanswered = undefined;
  }

  private start(): void {
    this.stop();
    this.beating = new AbortController();
    this.beat(this.beating.signal).catch(() => undefined);
  }

  private async beat(stopped: AbortSignal): Promise<void> {
    for (;;) {
      await this.period(stopped);
      if (this.unanswered !== undefined) await afterPendingInput();
      if (stopped.aborted) return;
      if (this.unanswered !== undefined) return this.dead();
      this.unanswered = this.socket.makeRef();
      this.socket.push({ topic: "phoenix", event: "heartbeat", payload: {}, ref: this.unanswered });
    }
  }

  /**
   * One period in steps on the clock: a step ends no sooner than its share of the period, and one that ended late
   * (the process was held) still counts as one, so the time the process stood still is not counted against the
   * bridge. Rejects once `stopped` aborts.
   */
  private async period(stopped: AbortSignal): Promise<void> {
    const stepMs = this.periodMs / HEARTBEAT_STEPS;
    for (let step = 0; step < HEARTBEAT_STEPS; step++) await this.clock.sleep(stepMs, stopped);
  }
}
