// Who is calling: the admin, a paired device, or nobody. Every route but GET /health asks this first.
import type { Db } from "../db/database.ts";
import { generateToken, hashToken, sameHash } from "./tokens.ts";

export type Principal = { kind: "admin" } | { kind: "device"; deviceId: string };

export class Authenticator {
  private readonly deviceByHash;
  private readonly liveDevice;
  /**
   * Names a device for a call the bridge relayed (server/forwarder/api-relay.ts runs it in-process): random per
   * process and never sent anywhere, so only this process can present it. The device is checked as its token would be.
   */
  private readonly relaySecret = hashToken(generateToken(32)); // 64 hex digits

  constructor(
    db: Db,
    private readonly adminTokenHash: string,
  ) {
    this.deviceByHash = db.prepare<[string], { id: string }>("SELECT id FROM devices WHERE token_hash = ? AND revoked_at IS NULL");
    this.liveDevice = db.prepare<[string], { id: string }>("SELECT id FROM devices WHERE id = ? AND revoked_at IS NULL");
  }

  /** The Authorization value of a relayed call made as `deviceId` (in-process only). */
  relayAuthorization(deviceId: string): string {
    return `Relay ${this.relaySecret} ${deviceId}`;
  }

  /** The principal a bearer token names, or undefined for a missing, wrong or revoked token. */
  identify(authorization: string | undefined): Principal | undefined {
    const relayed = /^Relay ([0-9a-f]{64}) (\S+)$/.exec(authorization ?? "");
    if (relayed) return sameHash(relayed[1]!, this.relaySecret) && this.liveDevice.get(relayed[2]!) ? { kind: "device", deviceId: relayed[2]! } : undefined;
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!token) return undefined;
    const hash = hashToken(token);
    if (sameHash(hash, this.adminTokenHash)) return { kind: "admin" };
    const device = this.deviceByHash.get(hash);
    return device ? { kind: "device", deviceId: device.id } : undefined;
  }
}
