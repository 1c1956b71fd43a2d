// Everything the bridge knows about each server: its credential (trust on first use), its devices' token hashes,
// its live pairing codes, its live channel, and its replay buffer and topic. Device and credential changes are
// persisted (DurableStore); events are not: after a restart the server resends from its own cursor.
//
// A device token hash is scoped to the server that granted it: a device is looked up per (server, hash), so what one
// server grants or withdraws never changes what another server's device may join, whichever granted first; and a
// withdrawal closes only the sockets on the withdrawing server's topic (or those no server grants any more).
import type { DeviceMode } from "../../client/wire/e2e.ts";
import type { CodeGrant, DeviceGrant } from "../../client/wire/frames.ts";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { ReplayBuffer } from "../fanout/replay-buffer.ts";
import { EventTopic } from "../fanout/topic.ts";
import { sameHex, sha256Hex } from "../hash.ts";
import type { Connection } from "../socket/connection.ts";
import type { DurableState, RegistryChange, RegistryStore, ServerRecord } from "./durable-store.ts";

export interface ServerLink {
  connection: Connection;
  joinRef: string | null;
}

export interface ServerState {
  readonly id: string;
  credentialHash: string;
  /** token hash → device id */
  devices: Map<string, string>;
  /** token hash → what the device is sent (grants without a mode: plain) */
  modes: Map<string, DeviceMode>;
  /** code hash → expiry (ms since epoch) */
  codes: Map<string, number>;
  link: ServerLink | undefined;
  epoch: string | undefined;
  /** Highest event id relayed since this bridge started; undefined until the server first joins. */
  lastId: string | undefined;
  readonly buffer: ReplayBuffer;
  readonly topic: EventTopic;
}

/** Each server's replay buffer bounds: events, and payload (`payloadJson.length` summed). */
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

const NO_GRANTS: ReadonlyMap<string, string> = new Map();

export class Registry {
  private readonly servers = new Map<string, ServerState>();
  /** token hash → the servers granting it → their device id (usually exactly one server). */
  private readonly grantsByToken = new Map<string, Map<string, string>>();
  private readonly socketsByToken = new Map<string, Set<Connection>>();

  private readonly onRevoked: (connection: Connection) => void;
  private readonly onForeignGrant: NonNullable<RegistryHooks["onForeignGrant"]>;

  constructor(
    private readonly store: RegistryStore,
    private readonly replay: ReplayLimits,
    hooks: RegistryHooks = {},
  ) {
    this.onRevoked = hooks.onRevoked ?? ((connection) => connection.close(BRIDGE_CLOSE.deviceRevoked, "device revoked"));
    this.onForeignGrant = hooks.onForeignGrant ?? (() => undefined);
    for (const [id, record] of Object.entries(store.load().servers)) {
      const state = this.create(id, record.credential_hash);
      this.setDevices(state, record.devices);
      state.codes = new Map(record.codes.map((code) => [code.code_hash, code.expires_at]));
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
   * Checks a server's credential; an unknown server id is registered with it (trust on first use). Whether a new id
   * may be registered at all (the cap, the per-address rate) is the caller's decision, made before this.
   */
  authenticateServer(serverId: string, credential: string): ServerAuth {
    const hash = sha256Hex(credential);
    let state = this.servers.get(serverId);
    if (!state) {
      state = this.create(serverId, hash);
      this.persist({ kind: "registered", serverId });
    }
    if (!sameHex(state.credentialHash, hash)) return { ok: false, reason: "unauthorized" };
    // One live channel per server: a second connection presenting the same credential is a replay or a twin.
    if (state.link && !state.link.connection.closed) return { ok: false, reason: "already_connected" };
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
    if (state.epoch !== undefined && state.epoch !== epoch) state.topic.closeAll(BRIDGE_CLOSE.restart, "server store reset");
    state.epoch = epoch;
    state.lastId = serverCursor;
    state.buffer.reset(serverCursor);
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

  /**
   * A server's record as another node of the cluster wrote it (bridge/cluster/registry-sync.ts): taken into this
   * node's view, nothing written back; sockets here of devices it no longer lists are closed at once.
   */
  applyRecord(serverId: string, record: ServerRecord): number {
    const state = this.servers.get(serverId) ?? this.create(serverId, record.credential_hash);
    state.credentialHash = record.credential_hash;
    return this.replaceGrants(state, record.devices, record.codes);
  }

  private replaceGrants(state: ServerState, devices: readonly DeviceGrant[], codes: readonly CodeGrant[]): number {
    const before = new Set(state.devices.keys());
    this.setDevices(state, devices);
    state.codes = new Map(codes.map((code) => [code.code_hash, code.expires_at]));
    let closed = 0;
    for (const hash of before) {
      if (state.devices.has(hash)) continue;
      const grantedElsewhere = this.grantsByToken.has(hash);
      for (const connection of this.socketsByToken.get(hash) ?? []) {
        if (grantedElsewhere && !state.topic.has(connection)) continue;
        this.onRevoked(connection);
        closed++;
      }
    }
    return closed;
  }

  /** The device id `serverId` granted this token hash to, if it did: the only question a join or a relay call asks. */
  deviceOf(serverId: string, tokenHash: string): string | undefined {
    return this.servers.get(serverId)?.devices.get(tokenHash);
  }

  /** What `serverId`'s device with this token hash is sent: sealed events (e2e) or plaintext. */
  modeOf(serverId: string, tokenHash: string): DeviceMode {
    return this.servers.get(serverId)?.modes.get(tokenHash) ?? "plain";
  }

  /** Whether any server grants this token hash (a paired device's socket, for admission). */
  knowsToken(tokenHash: string): boolean {
    return this.grantsByToken.has(tokenHash);
  }

  /** Every server granting this token hash, with its device id. */
  grantsOf(tokenHash: string): ReadonlyMap<string, string> {
    return this.grantsByToken.get(tokenHash) ?? NO_GRANTS;
  }

  findCode(codeHash: string): { state: ServerState; expiresAt: number } | undefined {
    for (const state of this.servers.values()) {
      const expiresAt = state.codes.get(codeHash);
      if (expiresAt !== undefined) return { state, expiresAt };
    }
    return undefined;
  }

  /** Takes a code off the bridge (single use), on disk too, so a restart does not bring a spent code back. */
  takeCode(state: ServerState, codeHash: string): void {
    if (state.codes.delete(codeHash)) this.persist({ kind: "code_taken", serverId: state.id, codeHash });
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
    for (const state of this.servers.values()) if (state.link && !state.link.connection.closed) count++;
    return count;
  }

  get activeTopics(): number {
    let count = 0;
    for (const state of this.servers.values()) if (state.topic.size > 0) count++;
    return count;
  }

  private create(id: string, credentialHash: string): ServerState {
    const state: ServerState = {
      id,
      credentialHash,
      devices: new Map(),
      modes: new Map(),
      codes: new Map(),
      link: undefined,
      epoch: undefined,
      lastId: undefined,
      buffer: new ReplayBuffer(this.replay.events, this.replay.bytes),
      topic: new EventTopic(`events:server:${id}`),
    };
    this.servers.set(id, state);
    return state;
  }

  private setDevices(state: ServerState, devices: readonly DeviceGrant[]): void {
    for (const hash of state.devices.keys()) this.ungrant(hash, state.id);
    state.devices = new Map();
    state.modes = new Map();
    for (const { token_hash: hash, device_id: deviceId, mode = "plain" } of devices) {
      state.devices.set(hash, deviceId);
      state.modes.set(hash, mode);
      let granting = this.grantsByToken.get(hash);
      if (!granting) this.grantsByToken.set(hash, (granting = new Map()));
      for (const owner of granting.keys()) if (owner !== state.id) this.onForeignGrant({ serverId: state.id, deviceId, owner });
      granting.set(state.id, deviceId);
    }
  }

  private ungrant(tokenHash: string, serverId: string): void {
    const granting = this.grantsByToken.get(tokenHash);
    granting?.delete(serverId);
    if (granting?.size === 0) this.grantsByToken.delete(tokenHash);
  }

  /** One server's record as the store keeps it. Plain is the default: only an encrypting device's mode is written. */
  record(state: ServerState): ServerRecord {
    return {
      credential_hash: state.credentialHash,
      devices: [...state.devices].map(([token_hash, device_id]) => ({ device_id, token_hash, ...(state.modes.get(token_hash) === "e2e" ? { mode: "e2e" as const } : {}) })),
      codes: [...state.codes].map(([code_hash, expires_at]) => ({ code_hash, expires_at })),
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
