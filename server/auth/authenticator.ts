// Who is calling: the admin, a paired device, or nobody. Every route but GET /health asks this first.
import type { Db } from "../db/database.ts";
import { generateToken, hashToken, sameHash } from "./tokens.ts";

export type Principal =
  | { kind: "admin" }
  | { kind: "device"; deviceId: string }
  /** A producer token: may only publish and resolve notifications (producer-scope.ts). */
  | { kind: "producer"; producerId: string; name: string };

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
  private readonly relaySecret = hashToken(generateToken(32)); // 64 hex digits

  /** The owner's local token of this process (auth/local-admin.ts): admin too, while this process runs. */
  private readonly localAdminHash: string;

  constructor(
    db: Db,
    private adminTokenHash: string,
    localAdminToken: string = generateToken(32),
  ) {
    this.localAdminHash = hashToken(localAdminToken);
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

  /** The Authorization value of a relayed call made as `deviceId` (in-process only). */
  relayAuthorization(deviceId: string): string {
    return `Relay ${this.relaySecret} ${deviceId}`;
  }

  /** The principal a bearer token names, or undefined for a missing, wrong or revoked token. */
  identify(authorization: string | undefined): Principal | undefined {
    const relayed = /^Relay ([0-9a-f]{64}) (\S+)$/.exec(authorization ?? "");
    if (relayed)
      return sameHash(relayed[1]!, this.relaySecret) && this.isLive(relayed[2]!)
        ? { kind: "device", deviceId: relayed[2]! }
        : undefined;
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!token) return undefined;
    const hash = hashToken(token);
    if (sameHash(hash, this.adminTokenHash) || sameHash(hash, this.localAdminHash)) return { kind: "admin" };
    const deviceId = this.deviceOf(hash);
    if (deviceId !== undefined) return { kind: "device", deviceId };
    // Not remembered: producers call rarely, and a revoked one must be refused at once.
    const producer = this.producerByHash.get(hash);
    return producer === undefined ? undefined : { kind: "producer", producerId: producer.id, name: producer.name };
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
