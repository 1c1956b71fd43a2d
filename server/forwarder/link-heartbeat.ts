// The bridge link's heartbeat on the server's Clock (docs/bridge.md "Server status", B172): every `everyMs` of an
// open link a phoenix heartbeat goes out, and one still unanswered when the next is due means the link is dead.
// phoenix.js has the same heartbeat on real timers; it is off on this link (HeartbeatOffTransport) because a real
// timer cannot tell a dead link from a busy process: an event loop held up longer than the period ran the timeout
// before the answer waiting in the socket was read, and the link was dropped and rejoined for nothing (B172 failed so
// under load). On the Clock, tests decide when a heartbeat is due; in production the Clock is the system's.
import type { Socket } from "phoenix";
import type { Clock } from "../clock.ts";
import { TurnCorkedWebSocket } from "./turn-corked-websocket.ts";

/** The link's WebSocket with phoenix's own heartbeat off (phoenix skips it for a transport that says so). */
export class HeartbeatOffTransport extends TurnCorkedWebSocket {
  readonly skipHeartbeat = true;
}

export class LinkHeartbeat {
  /** Ends the current open link's beats (it closed, or a new one opened). */
  private beating: AbortController | undefined;
  /** The ref of the heartbeat sent and not answered yet. */
  private unanswered: string | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly clock: Clock,
    private readonly everyMs: number,
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
    void this.beat(this.beating.signal);
  }

  private async beat(stopped: AbortSignal): Promise<void> {
    while (
      await this.clock.sleep(this.everyMs, stopped).then(
        () => !stopped.aborted,
        () => false,
      )
    ) {
      if (this.unanswered !== undefined) return this.dead();
      this.unanswered = this.socket.makeRef();
      this.socket.push({ topic: "phoenix", event: "heartbeat", payload: {}, ref: this.unanswered });
    }
  }
}
