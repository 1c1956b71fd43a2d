// A server's live channel on this bridge: the socket that joined `server:<id>` and the join it joined under. The one
// place that says whether the link is open and that builds a push to it, so every part that talks to a server asks
// it the same way. A link is made when the server's join succeeds and is dropped when its channel ends.
import type { Connection } from "../socket/connection.ts";

export class ServerLink {
  /** When the link was made, on the bridge's clock (`server_status.since`). */
  constructor(
    readonly serverId: string,
    readonly connection: Connection,
    readonly joinRef: string | null,
    readonly since: number,
    /** Whether the server declared audiences in its join (bridge/channels/server-audience.ts). */
    readonly audiences = false,
  ) {}

  /** Whether a frame pushed now can reach the server (its socket has not started closing). */
  get open(): boolean {
    return !this.connection.closed;
  }

  /** Pushes a ref-less frame on the server's topic; false when the link is no longer open. */
  push(event: string, payload: Record<string, unknown>): boolean {
    if (!this.open) return false;
    this.connection.send({ joinRef: this.joinRef, ref: null, topic: `server:${this.serverId}`, event, payload });
    return true;
  }

  close(code: number, reason: string): void {
    this.connection.close(code, reason);
  }
}
