// Closes sockets silent for longer than the idle timeout (1001, so the client comes back): the phoenix client
// heartbeats every 30 s, and the default timeout is 60 s. A running bridge sweeps on the injected clock, never
// mistaking the bridge's own stall for its peers' silence; tests may also call sweep() themselves.
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { every, type Clock } from "../clock.ts";
import type { BridgeLogger } from "../log.ts";
import type { Connection } from "./connection.ts";

export class IdleSweep {
  private readonly stopped = new AbortController();

  constructor(
    private readonly connections: Iterable<Connection>,
    private readonly clock: Clock,
    private readonly idleTimeoutMs: number,
    private readonly log: BridgeLogger,
  ) {}

  /** Closes the sockets silent since before their cutoff (a server's link has a shorter one); returns how many. */
  sweep(): number {
    const now = this.clock.now();
    let closed = 0;
    for (const connection of this.connections) {
      // A socket already closing waits for its close handshake (ws ends it after 30 s): not idle again.
      if (connection.closed || connection.lastSeen >= now - (connection.idleLimitMs ?? this.idleTimeoutMs)) continue;
      this.log.info({ socket: connection.id, address: connection.address }, "idle socket closed");
      connection.close(BRIDGE_CLOSE.goingAway, "idle");
      closed++;
    }
    return closed;
  }

  /**
   * Sweeps every `everyMs` on the clock. A bridge whose own loop stalled (a burst of pipelined events, a loaded
   * machine) must not take its backlog for silent peers: their heartbeats sit unread in the kernel. So a round only
   * queues the sweep for the check phase, after the poll phase has read what peers sent, and is skipped when it woke
   * more than a period late or the sweep is reached more than a period after it was queued. Lateness is measured on
   * the same clock as idleness: a test that jumps the clock past the idle timeout in one step is such a stall. Before
   * this, a stall longer than the idle timeout closed live sockets with 1001.
   */
  start(everyMs: number): void {
    every(
      this.clock,
      everyMs,
      (late) => {
        if (late > everyMs) return;
        const queuedAt = this.clock.now();
        setImmediate(() => {
          if (this.clock.now() - queuedAt <= everyMs) this.sweep();
        });
      },
      this.stopped.signal,
    );
  }

  stop(): void {
    this.stopped.abort();
  }
}
