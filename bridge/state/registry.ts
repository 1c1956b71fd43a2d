// Everything the bridge knows about each server: its credential (trust on first use), its devices' token hashes,
// its live pairing codes, its live channel, and its replay buffer and topic. Device and credential changes are
// persisted (DurableStore); events are not: after a restart the server resends from its own cursor.
//
// A device token hash is scoped to the server that granted it: a device is looked up per (server, hash), so what one
// server grants or withdraws never changes what another server's device may join, whichever granted first; and a
// withdrawal closes only the sockets on the withdrawing server's topic (or those no server grants any more).
import type { AppConfig } from "../../client/wire/app-config.ts";
import type { DeviceMode } from "../../client/wire/e2e.ts";
import type { CodeGrant, DeviceGrant } from "../../client/wire/frames.ts";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { ReplayBuffer } from "../fanout/replay-buffer.ts";
import { EventTopic } from "../fanout/topic.ts";
import { sameHash, sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import type { Connection } from "../socket/connection.ts";
import type { ServerLink } from "./server-link.ts";
import type { DurableState, RegistryChange, RegistryStore, ServerRecord } from "./durable-store.ts";

/** What a server grants a device's token: which device it is, and what it is sent (sealed events, or plaintext). */
export interface Grant {
  device_id: string;
  mode: DeviceMode;
  /** The device's audience tag (bridge/fanout/audience.ts); none: it is sent no event. */
  audience?: string;
}

/** One server as this bridge knows it: its credential, grants and codes, its link, and its replay buffer and topic. */
export class ServerState {
  /** token hash → the grant */
  devices = new Map<string, Grant>();
  /** code hash → expiry (ms since epoch) */
  codes = new Map<string, number>();
  /** The server's channel on this bridge while it is joined (an open link is asked of `liveLink`). */
  link: ServerLink | undefined;
  private historyEpoch: string | undefined;
  private lastRelayed: string | undefined;
  /** Whether the server's last link here declared audiences (bridge/channels/server-audience.ts); undefined: none yet. */
  private linkAudiences: boolean | undefined;
  /** What the server said `GET /app-config.json` answers for it (sent with its join), if it did. */
  appConfig: AppConfig | undefined;
  readonly buffer: ReplayBuffer;
  readonly topic: EventTopic;

  constructor(
    readonly id: string,
    public credentialHash: string,
    replay: ReplayLimits,
  ) {
    this.buffer = new ReplayBuffer(replay.events, replay.bytes);
    this.topic = new EventTopic(`events:server:${id}`);
  }

  /** The server's store the history holds events of; undefined until the server first joins. */
  get epoch(): string | undefined {
    return this.historyEpoch;
  }

  /** Highest event id relayed since this bridge started; undefined until the server first joins. */
  get lastId(): string | undefined {
    return this.lastRelayed;
  }

  /** The history starts over after `afterId` of store `epoch` (the one place both are set, with the buffer). */
  restartHistory(epoch: string, afterId: string): void {
    this.historyEpoch = epoch;
    this.lastRelayed = afterId;
    this.buffer.reset(afterId);
  }

  /** Whether the server's last link here declared audiences; undefined until it first joins. */
  get audiences(): boolean | undefined {
    return this.linkAudiences;
  }

  /**
   * A link joins saying whether it declares audiences. What the history holds was routed as the previous link said:
   * under another word it starts over (no relayed id, so the link's cursor does not continue it).
   */
  linked(audiences: boolean): void {
    if (this.linkAudiences !== undefined && this.linkAudiences !== audiences) this.lastRelayed = undefined;
    this.linkAudiences = audiences;
  }

  /** An event was relayed to this node's sockets: the newest one. */
  relayed(eventId: string): void {
    this.lastRelayed = eventId;
  }

  /** The server's link on this bridge when it is open. */
  get liveLink(): ServerLink | undefined {
    return this.link?.open ? this.link : undefined;
  }

  /** Pushes to the server's link on this bridge; false when there is none open. */
  push(event: string, payload: Record<string, unknown>): boolean {
    return this.link?.push(event, payload) ?? false;
  }
}

/** Each server's replay buffer bounds: events, and payload (its events' forms' lengths summed). */
export interface ReplayLimits {
  events: number;
  bytes: number;
}

/** What the registry tells its owner about: sockets of withdrawn devices, and a hash another server also grants. */
export interface RegistryHooks {
  onRevoked?(connection: Connection): void;
  /** A grant lists a token hash that `owner` (another server) grants too: harmless now, but worth a look. */
  onForeignGrant?(claim: { serverId: string; deviceId: string; owner: string }): void;
}

export type ServerAuth = { ok: true; state: ServerState } | { ok: false; reason: "unauthorized" | "already_connected" };

export class Registry {
  private readonly servers = new Map<string, ServerState>();
  private readonly socketsByToken = new Map<string, Set<Connection>>();

  private readonly onRevoked: (connection: Connection) => void;
  private readonly onForeignGrant: NonNullable<RegistryHooks["onForeignGrant"]>;

  constructor(
    private readonly store: RegistryStore,
    private readonly replay: ReplayLimits,
    hooks: RegistryHooks = {},
  ) {
    this.onRevoked =
      hooks.onRevoked ?? ((connection) => connection.close(BRIDGE_CLOSE.deviceRevoked, "device revoked"));
    this.onForeignGrant = hooks.onForeignGrant ?? (() => undefined);
    for (const [id, record] of Object.entries(store.load().servers)) {
      const state = this.create(id, record.credential_hash);
      this.setDevices(state, record.devices);
      state.codes = new Map(record.codes.map((code) => [code.code_hash, code.expires_at]));
      state.appConfig = record.app_config;
    }
  }

  get(serverId: string): ServerState | undefined {
    return this.servers.get(serverId);
  }

  /** Whether the server id is registered (a join for it authenticates; for any other id it registers). */
  has(serverId: string): boolean {
    return this.servers.has(serverId);
  }

  /** Server ids registered, connected or not. */
  get registeredServers(): number {
    return this.servers.size;
  }

  /**
   * Registers a new server id with its credential's hash (trust on first use), persisted. Whether it may be
   * registered at all (the cap, the per-address rate) is the shared state's decision, made before this.
   */
  register(serverId: string, credentialHash: string): void {
    if (this.servers.has(serverId)) return;
    this.create(serverId, credentialHash);
    this.persist({ kind: "registered", serverId });
  }

  /** Checks a registered server's credential; an id never registered is `unauthorized`. */
  authenticateServer(serverId: string, credential: string): ServerAuth {
    const state = this.servers.get(serverId);
    if (!state || !sameHash(state.credentialHash, sha256Hex(credential))) return { ok: false, reason: "unauthorized" };
    // One live channel per server: a second connection presenting the same credential is a replay or a twin.
    if (state.liveLink) return { ok: false, reason: "already_connected" };
    return { ok: true, state };
  }

  /** Whether what the bridge relayed continues where the server's store is (same store, nothing acked unseen). */
  continues(state: ServerState, epoch: string, serverCursor: string): boolean {
    return state.epoch === epoch && state.lastId !== undefined && state.lastId >= serverCursor;
  }

  /** Decides after which event id the server continues, keeping the buffer only when it is continuous. */
  resume(state: ServerState, epoch: string, serverCursor: string): string {
    if (this.continues(state, epoch, serverCursor)) return state.lastId!;
    // A new store: its ids start over, so apps still subscribed would drop its events as duplicates of the old
    // ones. They are sent away to reconnect (1012); their rejoin from the old epoch is answered "gap".
    if (state.epoch !== undefined && state.epoch !== epoch)
      state.topic.closeAll(BRIDGE_CLOSE.restart, "server store reset");
    state.restartHistory(epoch, serverCursor);
    return serverCursor;
  }

  /**
   * Replaces a server's devices and codes. Sockets of a device no longer listed are closed at once: those on this
   * server's topic, and any other only when no server grants the hash any more (another server's device is not this
   * server's to close).
   */
  applyGrants(state: ServerState, devices: readonly DeviceGrant[], codes: readonly CodeGrant[]): number {
    const closed = this.replaceGrants(state, devices, codes);
    this.persist({ kind: "grants", serverId: state.id });
    return closed;
  }

  /** Keeps what the server's join said about its app (persisted when it changed). */
  setAppConfig(state: ServerState, config: AppConfig): void {
    if (JSON.stringify(state.appConfig) === JSON.stringify(config)) return;
    state.appConfig = config;
    this.persist({ kind: "app_config", serverId: state.id });
  }

  /** The app config of `serverId`, or, without one, of the one server whose app is served at `appUrl`. */
  appConfigFor(serverId: string | undefined, appUrl: string): AppConfig | undefined {
    if (serverId !== undefined) return this.servers.get(serverId)?.appConfig;
    const serving = [...this.servers.values()].flatMap((state) =>
      state.appConfig && sameUrl(state.appConfig.app_url, appUrl) ? [state.appConfig] : [],
    );
    return serving.length === 1 ? serving[0] : undefined;
  }

  /**
   * A server's record as another node of the cluster wrote it (bridge/cluster/cluster-node.ts, `reload`): taken into this
   * node's view, nothing written back; sockets here of devices it no longer lists are closed at once.
   */
  applyRecord(serverId: string, record: ServerRecord): number {
    const state = this.servers.get(serverId) ?? this.create(serverId, record.credential_hash);
    state.credentialHash = record.credential_hash;
    state.appConfig = record.app_config;
    return this.replaceGrants(state, record.devices, record.codes);
  }

  private replaceGrants(state: ServerState, devices: readonly DeviceGrant[], codes: readonly CodeGrant[]): number {
    const before = state.devices;
    this.setDevices(state, devices);
    state.codes = new Map(codes.map((code) => [code.code_hash, code.expires_at]));
    let closed = 0;
    for (const [hash, was] of before) {
      const now = state.devices.get(hash);
      if (now && (now.mode !== was.mode || now.audience !== was.audience)) {
        this.regrouped(state, hash);
        continue;
      }
      if (now) continue;
      const grantedElsewhere = this.knowsToken(hash);
      for (const connection of this.socketsByToken.get(hash) ?? []) {
        if (grantedElsewhere && !state.topic.has(connection)) continue;
        this.onRevoked(connection);
        closed++;
      }
    }
    return closed;
  }

  /**
   * A device's grant changed what it is sent (its audience tag or its mode): its sockets on this server's topic were
   * subscribed as it was. They are sent away to rejoin (1012) under the new grant, which decides what they get.
   */
  private regrouped(state: ServerState, hash: string): void {
    for (const connection of this.socketsByToken.get(hash) ?? [])
      if (state.topic.has(connection)) connection.close(BRIDGE_CLOSE.restart, "device grant changed");
  }

  /** What `serverId` granted this token hash, if it did: the only question a join or a relay call asks. */
  grantOf(serverId: string, tokenHash: string): Grant | undefined {
    return this.servers.get(serverId)?.devices.get(tokenHash);
  }

  /** The device id `serverId` granted this token hash to, if it did. */
  deviceOf(serverId: string, tokenHash: string): string | undefined {
    return this.grantOf(serverId, tokenHash)?.device_id;
  }

  /**
   * Whether any server grants this token hash (a paired device's socket, for admission). A scan of the servers'
   * grant maps (at most `maxServers`, 100 by default), instead of a second index of the same grants to keep in step.
   */
  knowsToken(tokenHash: string): boolean {
    for (const state of this.servers.values()) if (state.devices.has(tokenHash)) return true;
    return false;
  }

  /** Every server granting this token hash, with its device id (normally one: a hash is a secret token's). */
  grantsOf(tokenHash: string): Array<[serverId: string, deviceId: string]> {
    const granting: Array<[string, string]> = [];
    for (const state of this.servers.values()) {
      const grant = state.devices.get(tokenHash);
      if (grant) granting.push([state.id, grant.device_id]);
    }
    return granting;
  }

  findCode(codeHash: string): { state: ServerState; expiresAt: number } | undefined {
    for (const state of this.servers.values()) {
      const expiresAt = state.codes.get(codeHash);
      if (expiresAt !== undefined) return { state, expiresAt };
    }
    return undefined;
  }

  /** Takes a code off the bridge (single use), on disk too, so a restart does not bring a spent code back. */
  takeCode(state: ServerState, codeHash: string): boolean {
    if (!state.codes.delete(codeHash)) return false;
    this.persist({ kind: "code_taken", serverId: state.id, codeHash });
    return true;
  }

  /** Takes a code off this bridge's view only (a cluster node took it off Redis itself, for every node). */
  dropCode(state: ServerState, codeHash: string): void {
    state.codes.delete(codeHash);
  }

  trackSocket(connection: Connection): void {
    if (!connection.tokenHash) return;
    let set = this.socketsByToken.get(connection.tokenHash);
    if (!set) this.socketsByToken.set(connection.tokenHash, (set = new Set()));
    set.add(connection);
  }

  untrackSocket(connection: Connection): void {
    if (!connection.tokenHash) return;
    const set = this.socketsByToken.get(connection.tokenHash);
    set?.delete(connection);
    if (set?.size === 0) this.socketsByToken.delete(connection.tokenHash);
  }

  /** Token hashes with at least one open socket (paired devices and unknown tokens alike). */
  connectedTokens(): IterableIterator<string> {
    return this.socketsByToken.keys();
  }

  get connectedServers(): number {
    let count = 0;
    for (const state of this.servers.values()) if (state.liveLink) count++;
    return count;
  }

  get activeTopics(): number {
    let count = 0;
    for (const state of this.servers.values()) if (state.topic.size > 0) count++;
    return count;
  }

  private create(id: string, credentialHash: string): ServerState {
    const state = new ServerState(id, credentialHash, this.replay);
    this.servers.set(id, state);
    return state;
  }

  private setDevices(state: ServerState, devices: readonly DeviceGrant[]): void {
    state.devices = new Map();
    for (const { token_hash: hash, device_id: deviceId, mode = "plain", audience } of devices) {
      for (const [owner] of this.grantsOf(hash))
        if (owner !== state.id) this.onForeignGrant({ serverId: state.id, deviceId, owner });
      state.devices.set(hash, { device_id: deviceId, mode, ...(audience === undefined ? {} : { audience }) });
    }
  }

  /** One server's record as the store keeps it. Plain is the default: only an encrypting device's mode is written. */
  record(state: ServerState): ServerRecord {
    return {
      credential_hash: state.credentialHash,
      devices: [...state.devices].map(([token_hash, grant]) => ({
        device_id: grant.device_id,
        token_hash,
        ...(grant.mode === "e2e" ? { mode: "e2e" as const } : {}),
        ...(grant.audience === undefined ? {} : { audience: grant.audience }),
      })),
      codes: [...state.codes].map(([code_hash, expires_at]) => ({ code_hash, expires_at })),
      ...(state.appConfig ? { app_config: state.appConfig } : {}),
    };
  }

  /** Every registered server, for a store that must write them all again (a cluster's Redis restarted empty). */
  states(): IterableIterator<ServerState> {
    return this.servers.values();
  }

  private persist(change: RegistryChange): void {
    this.store.save(() => this.snapshot(), change);
  }

  private snapshot(): DurableState {
    const servers: DurableState["servers"] = {};
    for (const state of this.servers.values()) servers[state.id] = this.record(state);
    return { servers };
  }
}

/** Two app URLs name the same place (a trailing slash aside). */
function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}
