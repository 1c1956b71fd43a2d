// The shared state of a bridge that is its own only node (no BRIDGE_REDIS_URL): the registry's records in
// `$DATA_DIR/bridge/servers.json`, each server's replay history in its in-memory buffer, the limits counted here. A
// server's link is this node's or nobody's, so a request to it is a push on the link or nothing.
import type { Clock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";
import type { BridgeLogger } from "../log.ts";
import { AddressRateLimiter } from "../rate-limiter.ts";
import { DurableStore } from "./durable-store.ts";
import { bridgeRegistry } from "./bridge-registry.ts";
import type { Registry, ServerState } from "./registry.ts";
import type { HistoryRead, LinkStatus, RegistrationRefusal, SharedState, ToServerEvent } from "./shared-state.ts";
import type { StatusPushes } from "./status-pushes.ts";

export class MemoryState implements SharedState {
  readonly registry: Registry;
  private readonly pairing: AddressRateLimiter;
  private readonly registrations: AddressRateLimiter;

  constructor(
    private readonly config: BridgeConfig,
    private readonly clock: Clock,
    log: BridgeLogger,
    private readonly statuses: StatusPushes,
  ) {
    this.registry = bridgeRegistry(new DurableStore(config.dataDir), config, log);
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

  async claimLink(): Promise<boolean> {
    return true;
  }

  releaseLink(): void {}

  async adoptHistory(): Promise<void> {}

  restartHistory(): void {}

  /** The link is this node's or nobody's; a socket already closing reads offline before its channel has ended. */
  async linkStatus(state: ServerState): Promise<LinkStatus> {
    const known = this.statuses.statusOf(state);
    const online = state.liveLink !== undefined;
    return known.online === online ? known : { online, since: this.clock.now() };
  }

  linkChanged(state: ServerState, status: LinkStatus): void {
    this.statuses.changed(state, status);
  }

  toServer(state: ServerState, event: ToServerEvent, payload: Record<string, unknown>): boolean {
    return state.push(event, payload);
  }

  /** Only this node forwards requests: an answer no waiter here took belongs to nobody. */
  async routeAnswer(): Promise<undefined> {
    return undefined;
  }

  async takeCode(state: ServerState, codeHash: string): Promise<boolean> {
    return this.registry.takeCode(state, codeHash);
  }

  async refresh(): Promise<void> {}

  keep(): undefined {
    return undefined;
  }

  async read(state: ServerState, sinceId: string | undefined): Promise<HistoryRead> {
    const meta =
      state.epoch !== undefined && state.lastId !== undefined
        ? { epoch: state.epoch, lastId: state.lastId }
        : undefined;
    return { meta, events: sinceId === undefined || !meta ? undefined : state.buffer.after(sinceId) };
  }

  forgetSession(state: ServerState, sessionId: string): void {
    state.buffer.drop((event: BufferedEvent) => event.sessionId === sessionId);
  }

  forgetEvents(state: ServerState, eventIds: readonly string[]): void {
    const doomed = new Set(eventIds);
    state.buffer.drop((event: BufferedEvent) => doomed.has(event.id));
  }

  reportSightings(state: ServerState, deviceIds: string[], connectedHere: string[]): void {
    state.push("devices_seen", { device_ids: deviceIds, connected: connectedHere });
  }

  async health(): Promise<Record<string, unknown>> {
    return { ok: true };
  }

  async close(): Promise<void> {}
}
