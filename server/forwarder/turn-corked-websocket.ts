// The forwarder's WebSocket (ws's client) with the bridge socket corked for the rest of an event-loop turn from its
// first send: every frame the server sends in one turn (the relayed calls' answers that finished in it, a burst of
// session_event pushes) leaves in one write instead of one writev each. Profiled under scripts/bench/relay.ts, a
// write per answer was the server's largest single cost of a relayed call (a syscall that also wakes the bridge).
// The socket is uncorked in the turn's check phase (setImmediate): after every callback of the poll phase that ran
// the calls, so a lone frame waits for nothing but the end of its own turn.
import type { Socket } from "node:net";
import { WebSocket } from "ws";

/** The reason a link whose heartbeat went unanswered is closed with (link-heartbeat.ts). */
export const HEARTBEAT_TIMEOUT = "heartbeat timeout";

export class TurnCorkedWebSocket extends WebSocket {
  private tcp: Socket | undefined;
  private corked = false;

  constructor(address: string, protocols?: string | string[]) {
    super(address, protocols);
    // ws hands its client the upgrade response, whose socket is the one the frames are written to.
    this.once("upgrade", (response) => void (this.tcp = response.socket));
  }

  /**
   * A link whose heartbeat went unanswered is closed (link-heartbeat.ts); over a link whose packets are dropped the
   * close handshake would hold the socket for ws's 30 s, so it is cut at once (phoenix has already moved on to a new
   * socket).
   */
  override close(code?: number, reason?: string | Buffer): void {
    super.close(code, reason);
    if (String(reason) === HEARTBEAT_TIMEOUT) this.terminate();
  }

  override send(data: Parameters<WebSocket["send"]>[0], optionsOrCallback?: unknown, callback?: unknown): void {
    if (!this.corked && this.tcp && this.readyState === WebSocket.OPEN) {
      const tcp = this.tcp;
      this.corked = true;
      tcp.cork();
      setImmediate(() => {
        this.corked = false;
        tcp.uncork();
      });
    }
    (super.send as (...args: unknown[]) => void)(data, optionsOrCallback, callback);
  }
}
