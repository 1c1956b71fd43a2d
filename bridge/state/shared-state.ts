// What one bridge shares with the other nodes of its cluster, behind one interface with two implementations, as
// Phoenix.PubSub's adapters and Centrifugo's Broker do: `MemoryState` (state/memory-state.ts: one node, servers.json
// and in-memory buffers) and `ClusterNode` (cluster/cluster-node.ts: Redis). The channels and the relay ask this
// interface and never know which one answers: one pairing path, one server-join path, one replay path
// (docs/bridge.md "Shared state").
//
// What is shared: the servers (registrations, credentials, grants and codes: `registry` is this node's view of
// them) and where their links are, the pairing codes' single use, each server's replay history, the pairing and
// registration limits, and the devices' sightings.
import { deliveryTo, type Recipient } from "../fanout/audience.ts";
import type { BufferedEvent, Arrival } from "../fanout/replay-buffer.ts";
import type { Registry, ServerState } from "./registry.ts";

/** A replay read: what the history knows (undefined when nothing) and the events after since_id, undefined for a gap. */
export interface HistoryRead {
  meta: { epoch: string; lastId: string } | undefined;
  events: BufferedEvent[] | undefined;
}

/** Frames the bridge sends a server's link, wherever the link is. */
export type ToServerEvent = "pair_request" | "api_request" | "devices_seen";

/** Answers a server gives to a request the bridge forwarded; in a cluster they may belong to another node's waiter. */
export type AnswerEvent = "pair_result" | "api_result";

/** Why a new server id may not be registered now. */
export type RegistrationRefusal = "registration_closed" | "rate_limited";

/** A server's link as every app of it sees it: whether some node holds it, since when (bridge clock, ms). */
export interface LinkStatus {
  online: boolean;
  since: number;
}

export interface SharedState {
  /** This node's view of every server's record, kept in step with the shared one. */
  readonly registry: Registry;

  /** Whether a pairing attempt from `address` is refused before it is looked at. */
  pairingLimited(address: string): Promise<boolean>;
  /** Counts a failed pairing attempt against `address` (and overall). */
  pairingFailed(address: string): void;

  /**
   * Makes sure `serverId` is known here: an id registered elsewhere is read in; a new one is registered with
   * `credentialHash` when the cap and `address`'s rate allow it (counted), else the refusal.
   */
  registerServer(serverId: string, credentialHash: string, address: string): Promise<RegistrationRefusal | undefined>;
  /** Takes the server's link for this node; false when another node holds it. */
  claimLink(state: ServerState): Promise<boolean>;
  /** Gives the claim back (the join failed after claiming, or the link ended). */
  releaseLink(state: ServerState): void;
  /** Before a link starts here: take what the shared history knows (epoch, last id), so the server resumes there. */
  adoptHistory(state: ServerState): Promise<void>;
  /** The link here restarted the server's history after `afterId` (a new store, or a cursor past it). */
  restartHistory(state: ServerState, epoch: string, afterId: string, storeChanged: boolean): void;
  /** The server's link, here or on another node. */
  linkStatus(state: ServerState): Promise<LinkStatus>;
  /** The link here changed (made or ended): every node's apps of the server are told. */
  linkChanged(state: ServerState, status: LinkStatus): void;

  /** Sends a frame to the server's link wherever it is; false when no node holds it open. */
  toServer(state: ServerState, event: ToServerEvent, payload: Record<string, unknown>): boolean | Promise<boolean>;
  /**
   * A server's answer no waiter here took: handed to the node that forwarded its request. Undefined when no other
   * node asked; else whether its waiter took it.
   */
  routeAnswer(state: ServerState, event: AnswerEvent, payload: Record<string, unknown>): Promise<boolean | undefined>;

  /** Takes a pairing code for good: true for exactly one taker of it, on any node. */
  takeCode(state: ServerState, codeHash: string): Promise<boolean>;
  /** Reads a server's grants again (a device may have paired on another node moments ago). */
  refresh(serverId: string): Promise<void>;

  /**
   * Keeps an event the link here relayed (`arrival` as the server's buffer classified it, `prev` the id it follows)
   * in the shared history. A promise when the event must be written before the server's push is acknowledged.
   */
  keep(state: ServerState, event: BufferedEvent, arrival: Arrival, prev: string): Promise<void> | undefined;
  /** The history after `sinceId` (or only its meta without one). */
  read(state: ServerState, sinceId: string | undefined): Promise<HistoryRead>;
  /** Drops a deleted session's events from the history (their bodies; the chain of ids stays). */
  forgetSession(state: ServerState, sessionId: string): void;
  /** Drops the events the server named in `forget` (a deleted session's) from the history, as forgetSession does. */
  forgetEvents(state: ServerState, eventIds: readonly string[]): void;

  /** Devices seen here since the last report, and the ones connected here now, for the server's `devices_seen`. */
  reportSightings(state: ServerState, deviceIds: string[], connectedHere: string[]): void;

  /** GET /health's body. */
  health(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * Whether a join's replay can give this device what `event` holds for it: its form, or nothing when the event is
 * not for it (bridge/fanout/audience.ts). A device in the audience without its form gets a gap.
 */
export function hasForm(event: BufferedEvent, recipient: Recipient): boolean {
  return deliveryTo(event, recipient).kind !== "missing";
}
