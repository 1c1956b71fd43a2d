// Who is calling: the admin, a paired device, a producer, or nobody. Every route but the open ones asks this first.
import type { Db } from "../db/database.ts";
import { callerOf, type Caller, type Credential, type PersonLookup, type RelayPass } from "./caller.ts";
import { generateToken } from "./tokens.ts";
import { sameHash, sha256Hex } from "../../client/wire/crypto/token-hash.ts";

/** What a request presents: its Authorization header, and a relay pass when the bridge relayed it in-process. */
export interface Presented {
  authorization?: string | undefined;
  relayed?: RelayPass | undefined;
}

/** Live devices remembered at most (each a token hash and an id): past it the memory starts over. */
const REMEMBERED_DEVICES = 10_000;

export class Authenticator {
  private readonly deviceByHash;
  private readonly liveDevice;
  private readonly producerByHash;
  /**
   * What SQLite said of live devices: token hash → device id, and the ids. Every request asks (a point query of a few
   * µs each, per relayed call too); only answers naming a live device are kept, so unknown tokens cannot grow it, and
   * `forget()` runs on every revocation (runtime.ts), before the next request is authorized.
   */
  private readonly liveByHash = new Map<string, string>();
  private readonly liveIds = new Set<string>();
  /**
   * Names a device for a call the bridge relayed (server/forwarder/api-relay.ts runs it in-process): random per
   * process and never sent anywhere, so only this process can present it. The device is checked as its token would be.
   */
  private readonly relaySecret = sha256Hex(generateToken(32)); // 64 hex digits

  /** The owner's local token of this process (auth/local-admin.ts): admin too, while this process runs. */
  private readonly localAdminHash: string;

  constructor(
    db: Db,
    private adminTokenHash: string,
    localAdminToken: string = generateToken(32),
    private readonly people: PersonLookup,
  ) {
    this.localAdminHash = sha256Hex(localAdminToken);
    this.deviceByHash = db.prepare<[string], { id: string }>(
      "SELECT id FROM devices WHERE token_hash = ? AND revoked_at IS NULL",
    );
    this.producerByHash = db.prepare<[string], { id: string; name: string }>(
      "SELECT id, name FROM producers WHERE token_hash = ?",
    );
    this.liveDevice = db.prepare<[string], { id: string }>(
      "SELECT id FROM devices WHERE id = ? AND revoked_at IS NULL",
    );
  }

  /** The pass of a call relayed as `deviceId` (in-process only: it rides on the request object, never on the wire). */
  relayPass(deviceId: string): RelayPass {
    return { secret: this.relaySecret, device_id: deviceId };
  }

  /**
   * The caller a request proves, or undefined for a missing, wrong or revoked credential. A relay pass, when there is
   * one, is the whole proof: its header is not read.
   */
  authenticate(presented: Presented): Caller | undefined {
    const credential = presented.relayed
      ? this.relayedDevice(presented.relayed)
      : this.tokenOwner(presented.authorization);
    return credential === undefined ? undefined : callerOf(credential, this.people);
  }

  /** The one check of a relay pass: this process's secret, and a device still live. */
  private relayedDevice(pass: RelayPass): Credential | undefined {
    if (!/^[0-9a-f]{64}$/.test(pass.secret) || !sameHash(pass.secret, this.relaySecret)) return undefined;
    return this.isLive(pass.device_id) ? { kind: "device", device_id: pass.device_id } : undefined;
  }

  private tokenOwner(authorization: string | undefined): Credential | undefined {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!token) return undefined;
    const hash = sha256Hex(token);
    if (sameHash(hash, this.adminTokenHash) || sameHash(hash, this.localAdminHash)) return { kind: "admin" };
    const deviceId = this.deviceOf(hash);
    if (deviceId !== undefined) return { kind: "device", device_id: deviceId };
    // Not remembered: producers call rarely, and a revoked one must be refused at once.
    const producer = this.producerByHash.get(hash);
    return producer === undefined
      ? undefined
      : { kind: "producer", producer_id: producer.id, producer_name: producer.name };
  }

  /** A new admin token's hash (`npm run admin-token -- --reset`): the old token stops working at once. */
  setAdminTokenHash(hash: string): void {
    this.adminTokenHash = hash;
  }

  /** Drops what it remembers of live devices: call it whenever a device is revoked. */
  forget(): void {
    this.liveByHash.clear();
    this.liveIds.clear();
  }

  private deviceOf(hash: string): string | undefined {
    const known = this.liveByHash.get(hash);
    if (known !== undefined) return known;
    const id = this.deviceByHash.get(hash)?.id;
    if (id !== undefined) this.remember(hash, id);
    return id;
  }

  private isLive(deviceId: string): boolean {
    if (this.liveIds.has(deviceId)) return true;
    const live = this.liveDevice.get(deviceId) !== undefined;
    if (live) this.remember(undefined, deviceId);
    return live;
  }

  private remember(hash: string | undefined, deviceId: string): void {
    if (this.liveIds.size >= REMEMBERED_DEVICES) this.forget();
    if (hash !== undefined) this.liveByHash.set(hash, deviceId);
    this.liveIds.add(deviceId);
  }
}
