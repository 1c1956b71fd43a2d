// What one bridge shares with the other nodes of its cluster, as four capabilities the channels use, each with two
// implementations, as Phoenix.PubSub's adapters and Centrifugo's Broker do: `MemoryState` (state/memory-state.ts: one
// node, servers.json and in-memory buffers) and `ClusterNode` (cluster/cluster-node.ts: Redis). A channel asks the
// capability it needs and never knows which one answers: one pairing path, one server-join path, one replay path
// (docs/bridge.md "Shared state"). The single node implements each capability whole: every member does this node's
// part, and the cluster node does the same and shares it.
//
// What is shared: the servers (registrations, credentials, grants and codes: `registry` is this node's view of
// them) and where their links are, the pairing codes' single use, each server's replay history, the pairing and
// registration limits, and the devices' sightings.
import { deliveryTo, type Recipient } from "../fanout/audience.ts";
import type { BufferedEvent, Arrival } from "../fanout/replay-buffer.ts";
import type { Grant, Registry, ServerState } from "./registry.ts";

/** A replay read: what the history knows (undefined when nothing) and the events after since_id, undefined for a gap. */
export interface HistoryRead {
  meta: { epoch: string; lastId: string } | undefined;
  events: BufferedEvent[] | undefined;
}

/** Frames the bridge sends a server's link, wherever the link is. */
export type ToServerEvent = "pair_request" | "api_request" | "devices_seen" | "share_request";

/** Answers a server gives to a request the bridge forwarded; in a cluster they may belong to another node's waiter. */
export type AnswerEvent = "pair_result" | "api_result" | "share_result";

/** Why a new server id may not be registered now. */
export type RegistrationRefusal = "registration_closed" | "rate_limited";

/** A server's link as every app of it sees it: whether some node holds it, since when (bridge clock, ms). */
export interface LinkStatus {
  online: boolean;
  since: number;
}

/** Pairing: the attempt limits and a code's single use (the pairing channel). */
export interface PairingCapability {
  /** Whether a pairing attempt from `address` is refused before it is looked at. */
  pairingLimited(address: string): Promise<boolean>;
  /** Counts a failed pairing attempt against `address` (and overall). */
  pairingFailed(address: string): void;
  /** Takes a pairing code for good: true for exactly one taker of it, on any node. */
  takeCode(state: ServerState, codeHash: string): Promise<boolean>;
}

/** Servers: registration, the one link of each server, frames to it and its answers, and what its apps are told. */
export interface ServersCapability {
  /**
   * Makes sure `serverId` is known here: an id registered elsewhere is read in; a new one is registered with
   * `credentialHash` when the cap and `address`'s rate allow it (counted), else the refusal.
   */
  registerServer(serverId: string, credentialHash: string, address: string): Promise<RegistrationRefusal | undefined>;
  /**
   * Takes the server's link for this join; false while another holds it (a join here, or another node). Taken, the
   * replay history's place is this node's to resume from (another node may have held the link before).
   */
  claimLink(state: ServerState): Promise<boolean>;
  /** Gives the claim back (the join failed after claiming, or the link ended). */
  releaseLink(state: ServerState): void;
  /** The server's link, here or on another node. */
  linkStatus(state: ServerState): Promise<LinkStatus>;
  /** The link here changed (made or ended): every node's apps of the server are told. */
  linkChanged(state: ServerState, status: LinkStatus): void;
  /** Sends a frame to the server's link wherever it is; false when no node holds it open. */
  toServer(state: ServerState, event: ToServerEvent, payload: Record<string, unknown>): boolean | Promise<boolean>;
  /** Hands a server's answer to the waiter that asked for it: here, else on the node that forwarded the request. */
  answer(state: ServerState, event: AnswerEvent, payload: Record<string, unknown>): Promise<boolean>;
  /** Devices seen here since the last report, and the ones connected here now, for the server's `devices_seen`. */
  reportSightings(state: ServerState, deviceIds: string[], connectedHere: string[]): void;
}

/** What one event the link here relayed did (replay-buffer.ts's arrival), and its keeping in the shared history. */
export interface Relayed {
  arrival: Arrival;
  /** Resolves once the event is in the shared history, when the server's push must wait for that to be acked. */
  kept: Promise<void> | undefined;
}

/** Replay: each server's history of relayed events, which devices' joins replay from. */
export interface ReplayCapability {
  /**
   * A link joined with the server's store `epoch` and `cursor`: the id it resumes after. The history continues when
   * it holds the cursor for that store; else it starts over after the cursor, on every node.
   */
  resume(state: ServerState, epoch: string, cursor: string): string;
  /**
   * Fans out an event the link here relayed (`after`: the id the server says it follows) and keeps it in the
   * history. `deletedSession`: the session a `session_deleted` deletes, whose events leave the history first.
   */
  relay(state: ServerState, event: BufferedEvent, after: string | undefined, deletedSession?: string): Relayed;
  /** The history after `sinceId` (or only its meta without one). */
  read(state: ServerState, sinceId: string | undefined): Promise<HistoryRead>;
  /**
   * Drops the events the server named in a `forget` (a deleted session's, which a sealed `session_deleted` cannot
   * name) from the history: their bodies go, the chain of ids stays.
   */
  forget(state: ServerState, eventIds: readonly string[]): void;
}

/** Grants: this node's view of every server's devices and codes. */
export interface GrantsCapability {
  /** This node's view of every server's record, kept in step with the shared one. */
  readonly registry: Registry;
  /**
   * The device's grant on the server, reading the server's record again when this node has none (a device may have
   * paired on another node moments ago); undefined when the server does not grant the token.
   */
  grantOf(serverId: string, tokenHash: string): Promise<Grant | undefined>;
}

/** A node's shared state: the four capabilities, its health and its end. */
export interface SharedState extends PairingCapability, ServersCapability, ReplayCapability, GrantsCapability {
  /** GET /health's body. */
  health(): Promise<Record<string, unknown>>;
  /** Gives back what this node holds (its links' claims) and lets go of what it shares through. */
  close(): Promise<void>;
}

/**
 * Whether a join's replay can give this device what `event` holds for it: its form, or nothing when the event is
 * not for it (bridge/fanout/audience.ts). A device in the audience without its form gets a gap.
 */
export function hasForm(event: BufferedEvent, recipient: Recipient): boolean {
  return deliveryTo(event, recipient).kind !== "missing";
}
