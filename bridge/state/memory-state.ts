// The shared state of a bridge that is its own only node (no BRIDGE_REDIS_URL): the registry's records in
// `$DATA_DIR/bridge/servers.json`, each server's replay history in its in-memory buffer, the limits counted here. A
// server's link is this node's or nobody's, so a request to it is a push on the link or nothing, and its answer is for
// a waiter here or for nobody.
import type { Clock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import { deliverEvent } from "../fanout/deliver.ts";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";
import type { BridgeLogger } from "../log.ts";
import type { BridgeMetrics } from "../metrics.ts";
import { AddressRateLimiter } from "../rate-limiter.ts";
import type { AnswerDesk } from "./answer-desk.ts";
import { DurableStore } from "./durable-store.ts";
import { bridgeRegistry } from "./bridge-registry.ts";
import type { Grant, Registry, ServerState } from "./registry.ts";
import type {
  AnswerEvent,
  HistoryRead,
  LinkStatus,
  RegistrationRefusal,
  Relayed,
  SharedState,
  ToServerEvent,
} from "./shared-state.ts";
import type { StatusPushes } from "./status-pushes.ts";

/** What a node is built from besides its config: the parts every node of the bridge shares. */
export interface NodeParts {
  clock: Clock;
  log: BridgeLogger;
  metrics: BridgeMetrics;
  answers: AnswerDesk;
  statuses: StatusPushes;
}

export class MemoryState implements SharedState {
  readonly registry: Registry;
  private readonly pairing: AddressRateLimiter;
  private readonly registrations: AddressRateLimiter;
  /** Servers whose link a join here has claimed: one join at a time takes a server's link. */
  private readonly claimed = new Set<string>();

  constructor(
    private readonly config: BridgeConfig,
    private readonly parts: NodeParts,
  ) {
    const { clock } = parts;
    this.registry = bridgeRegistry(new DurableStore(config.dataDir), config, parts.log);
    this.pairing = new AddressRateLimiter(
      clock,
      config.pairingFailuresPerAddress,
      config.pairingFailuresOverall,
      config.pairingWindowMs,
      config.pairingFailingAddresses,
    );
    // The cap bounds registrations overall; this bounds one address's share of it.
    this.registrations = new AddressRateLimiter(
      clock,
      config.serverRegistrationsPerAddress,
      Number.POSITIVE_INFINITY,
      config.serverRegistrationWindowMs,
    );
  }

  async pairingLimited(address: string): Promise<boolean> {
    return this.pairing.limited(address);
  }

  pairingFailed(address: string): void {
    this.pairing.record(address);
  }

  async takeCode(state: ServerState, codeHash: string): Promise<boolean> {
    return this.registry.takeCode(state, codeHash);
  }

  /** Decided and registered in one turn: two joins racing for the last place cannot both take it. */
  async registerServer(
    serverId: string,
    credentialHash: string,
    address: string,
  ): Promise<RegistrationRefusal | undefined> {
    if (this.registry.has(serverId)) return undefined;
    if (this.registry.registeredServers >= this.config.maxServers) return "registration_closed";
    if (this.registrations.limited(address)) return "rate_limited";
    this.registrations.record(address);
    this.registry.register(serverId, credentialHash);
    return undefined;
  }

  /** The history is this node's own buffer, already in place: the claim is only whether another join holds it. */
  async claimLink(state: ServerState): Promise<boolean> {
    if (this.claimed.has(state.id)) return false;
    this.claimed.add(state.id);
    return true;
  }

  releaseLink(state: ServerState): void {
    this.claimed.delete(state.id);
  }

  /** The link is this node's or nobody's; a socket already closing reads offline before its channel has ended. */
  async linkStatus(state: ServerState): Promise<LinkStatus> {
    const known = this.parts.statuses.statusOf(state);
    const online = state.liveLink !== undefined;
    return known.online === online ? known : { online, since: this.parts.clock.now() };
  }

  linkChanged(state: ServerState, status: LinkStatus): void {
    this.parts.statuses.changed(state, status);
  }

  toServer(state: ServerState, event: ToServerEvent, payload: Record<string, unknown>): boolean {
    return state.push(event, payload);
  }

  /** Only this node forwards requests: an answer no waiter here takes belongs to nobody. */
  async answer(state: ServerState, event: AnswerEvent, payload: Record<string, unknown>): Promise<boolean> {
    return this.parts.answers.take(event, state, payload);
  }

  reportSightings(state: ServerState, deviceIds: string[], connectedHere: string[]): void {
    state.push("devices_seen", { device_ids: deviceIds, connected: connectedHere });
  }

  resume(state: ServerState, epoch: string, cursor: string): string {
    return this.registry.resume(state, epoch, cursor);
  }

  /** The buffer is the history: what fans out is kept, and an ack needs nothing more. */
  relay(state: ServerState, event: BufferedEvent, after: string | undefined, deletedSession?: string): Relayed {
    const arrival = deliverEvent(this.parts, state, event, after);
    if (arrival !== "duplicate" && deletedSession !== undefined)
      state.buffer.drop((kept: BufferedEvent) => kept.sessionId === deletedSession);
    return { arrival, kept: undefined };
  }

  async read(state: ServerState, sinceId: string | undefined): Promise<HistoryRead> {
    const meta =
      state.epoch !== undefined && state.lastId !== undefined
        ? { epoch: state.epoch, lastId: state.lastId }
        : undefined;
    return { meta, events: sinceId === undefined || !meta ? undefined : state.buffer.after(sinceId) };
  }

  forget(state: ServerState, eventIds: readonly string[]): void {
    const doomed = new Set(eventIds);
    state.buffer.drop((event: BufferedEvent) => doomed.has(event.id));
  }

  /** The registry is the only record of the grants: there is nothing to read again. */
  async grantOf(serverId: string, tokenHash: string): Promise<Grant | undefined> {
    return this.registry.grantOf(serverId, tokenHash);
  }

  async health(): Promise<Record<string, unknown>> {
    return { ok: true };
  }

  /** Links still claimed are given back, so no join waits on this node's end. */
  async close(): Promise<void> {
    this.claimed.clear();
  }
}
