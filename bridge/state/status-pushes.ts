// Whether each server's link is up, as its apps are told: the `server_online` of an events join's reply and a
// `server_status {online, since}` push on `events:server:<id>` at every change (docs/bridge.md "Server status").
// A change is pushed once: a link replaced by the server's next join within one turn reads as no change. `since` is
// when the link last changed (the bridge's start for a server never linked since).
import { SERVER_STATUS_EVENT } from "../../client/wire/server-status.ts";
import type { Clock } from "../clock.ts";
import type { ServerState } from "./registry.ts";
import type { LinkStatus } from "./shared-state.ts";

export class StatusPushes {
  private readonly known = new Map<string, LinkStatus>();
  private readonly started: number;

  constructor(private readonly clock: Clock) {
    this.started = clock.now();
  }

  /** The last status this node knows of (its own link's, or what the cluster told it). */
  statusOf(state: ServerState): LinkStatus {
    return this.known.get(state.id) ?? { online: false, since: this.started };
  }

  /** Records a change and pushes it to the server's apps on this node; the same status again is not a change. */
  changed(state: ServerState, status: LinkStatus): void {
    if (this.kept(state, status)) state.topic.announce(SERVER_STATUS_EVENT, JSON.stringify(wireStatus(status)));
  }

  /**
   * Records what a join's reply told its app when the node read it from the cluster (the link's claim in Redis)
   * rather than heard it: a node that subscribed after the link's message never hears it, and a status it does not
   * keep is one it never pushes the end of. The apps already subscribed heard otherwise and are told; the joins being
   * held are not, each has its own reply.
   */
  told(state: ServerState, status: LinkStatus): void {
    if (this.kept(state, status))
      state.topic.announceToSubscribed(SERVER_STATUS_EVENT, JSON.stringify(wireStatus(status)));
  }

  /** Keeps `status` as the server's; false when it says what is kept already (no change to push). */
  private kept(state: ServerState, status: LinkStatus): boolean {
    const previous = this.known.get(state.id);
    if (previous && previous.online === status.online) return false;
    this.known.set(state.id, status);
    return true;
  }

  /** A status as the wire spells it. */
  now(online: boolean): LinkStatus {
    return { online, since: this.clock.now() };
  }
}

export function wireStatus(status: LinkStatus): { online: boolean; since: string } {
  return { online: status.online, since: new Date(status.since).toISOString() };
}
