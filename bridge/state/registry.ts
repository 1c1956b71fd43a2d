// Everything the bridge knows about each server: its credential (trust on first use), its devices' token hashes,
// its live pairing codes, its live channel, and its replay buffer and topic. Device and credential changes are
// persisted (DurableStore); events are not: after a restart the server resends from its own cursor.
//
// A device token hash belongs to the server that first granted it: another server listing it is ignored for that
// device (and reported), else any registered server could take a device off its own topic by claiming its hash and
// then get its sockets closed with 4001 by withdrawing the claim.
import type { DeviceMode } from "../../client/wire/e2e.ts";
import type { CodeGrant, DeviceGrant } from "../../client/wire/frames.ts";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { ReplayBuffer } from "../fanout/replay-buffer.ts";
import { EventTopic } from "../fanout/topic.ts";
import { sameHex, sha256Hex } from "../hash.ts";
import type { Connection } from "../socket/connection.ts";
import type { DurableStore } from "./durable-store.ts";

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

/** What the registry tells its owner about: sockets of withdrawn devices, and grants of another server's device. */
export interface RegistryHooks {
  onRevoked?(connection: Connection): void;
  onForeignGrant?(claim: { serverId: string; deviceId: string; owner: string }): void;
}

export type ServerAuth = { ok: true; state: ServerState } | { ok: false; reason: "unauthorized" | "already_connected" };

export class Registry {
  private readonly servers = new Map<string, ServerState>();
  private readonly deviceIndex = new Map<string, { serverId: string; deviceId: string; mode: DeviceMode }>();
  private readonly socketsByToken = new Map<string, Set<Connection>>();

  private readonly onRevoked: (connection: Connection) => void;
  private readonly onForeignGrant: NonNullable<RegistryHooks["onForeignGrant"]>;

  constructor(
    private readonly store: DurableStore,
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
      this.persist();
    }
    if (!sameHex(state.credentialHash, hash)) return { ok: false, reason: "unauthorized" };
    // One live channel per server: a second connection presenting the same credential is a replay or a twin.
    if (state.link && !state.link.connection.closed) return { ok: false, reason: "already_connected" };
    return { ok: true, state };
  }

  /** Decides after which event id the server continues, keeping the buffer only when it is continuous. */
  resume(state: ServerState, epoch: string, serverCursor: string): string {
    if (state.epoch === epoch && state.lastId !== undefined && state.lastId >= serverCursor) return state.lastId;
    // A new store: its ids start over, so apps still subscribed would drop its events as duplicates of the old
    // ones. They are sent away to reconnect (1012); their rejoin from the old epoch is answered "gap".
    if (state.epoch !== undefined && state.epoch !== epoch) state.topic.closeAll(BRIDGE_CLOSE.restart, "server store reset");
    state.epoch = epoch;
    state.lastId = serverCursor;
    state.buffer.reset(serverCursor);
    return serverCursor;
  }

  /**
   * Replaces a server's devices and codes; sockets of devices no longer listed are closed at once. A listed hash that
   * another server owns is skipped (onForeignGrant).
   */
  applyGrants(state: ServerState, devices: readonly DeviceGrant[], codes: readonly CodeGrant[]): number {
    const before = new Set(state.devices.keys());
    this.setDevices(state, devices);
    state.codes = new Map(codes.map((code) => [code.code_hash, code.expires_at]));
    let closed = 0;
    for (const hash of before) {
      if (state.devices.has(hash)) continue;
      for (const connection of this.socketsByToken.get(hash) ?? []) {
        this.onRevoked(connection);
        closed++;
      }
    }
    this.persist();
    return closed;
  }

  device(tokenHash: string): { serverId: string; deviceId: string; mode: DeviceMode } | undefined {
    return this.deviceIndex.get(tokenHash);
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
    if (state.codes.delete(codeHash)) this.persist();
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
    for (const hash of state.devices.keys()) this.deviceIndex.delete(hash);
    state.devices = new Map();
    state.modes = new Map();
    for (const { token_hash: hash, device_id: deviceId, mode = "plain" } of devices) {
      const owner = this.deviceIndex.get(hash)?.serverId;
      if (owner !== undefined && owner !== state.id) {
        this.onForeignGrant({ serverId: state.id, deviceId, owner });
        continue;
      }
      state.devices.set(hash, deviceId);
      state.modes.set(hash, mode);
      this.deviceIndex.set(hash, { serverId: state.id, deviceId, mode });
    }
  }

  private persist(): void {
    const servers: Record<string, { credential_hash: string; devices: DeviceGrant[]; codes: CodeGrant[] }> = {};
    for (const state of this.servers.values()) {
      servers[state.id] = {
        credential_hash: state.credentialHash,
        // Plain is the default: only an encrypting device's mode is written.
        devices: [...state.devices].map(([token_hash, device_id]) => ({ device_id, token_hash, ...(state.modes.get(token_hash) === "e2e" ? { mode: "e2e" as const } : {}) })),
        codes: [...state.codes].map(([code_hash, expires_at]) => ({ code_hash, expires_at })),
      };
    }
    this.store.save({ servers });
  }
}
