// Closes sockets silent for longer than the idle timeout (1001, so the client comes back): the phoenix client
// heartbeats every 30 s, and the default timeout is 60 s. Tests call sweep() themselves; a running bridge sweeps on a
// timer that never mistakes the bridge's own stall for its peers' silence.
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import type { BridgeClock } from "../clock.ts";
import type { BridgeLogger } from "../log.ts";
import type { Connection } from "./connection.ts";

export class IdleSweep {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connections: Iterable<Connection>,
    private readonly clock: BridgeClock,
    private readonly idleTimeoutMs: number,
    private readonly log: BridgeLogger,
  ) {}

  /** Closes the sockets silent since before the cutoff; returns how many. */
  sweep(): number {
    const cutoff = this.clock.now() - this.idleTimeoutMs;
    let closed = 0;
    for (const connection of this.connections) {
      // A socket already closing waits for its close handshake (ws ends it after 30 s): not idle again.
      if (connection.closed || connection.lastSeen >= cutoff) continue;
      this.log.log("info", "idle socket closed", { socket: connection.id, address: connection.address });
      connection.close(BRIDGE_CLOSE.goingAway, "idle");
      closed++;
    }
    return closed;
  }

  /**
   * Sweeps every `everyMs`. A bridge whose own loop stalled (a burst of pipelined events, a loaded machine) must not
   * take its backlog for silent peers: their heartbeats sit unread in the kernel. So the timer only queues the sweep
   * for the check phase, after the poll phase has read what peers sent, and skips a round when the loop was late
   * (real time, whatever the injected clock says) before or after queueing it. Before this, a stall longer than the
   * idle timeout closed live sockets with 1001.
   */
  start(everyMs: number): void {
    let lastTick = performance.now();
    const tick = () => {
      const queuedAt = performance.now();
      const stalled = queuedAt - lastTick > 2 * everyMs;
      lastTick = queuedAt;
      if (stalled) return;
      setImmediate(() => {
        if (performance.now() - queuedAt <= everyMs) this.sweep();
      });
    };
    this.timer = setInterval(tick, everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
