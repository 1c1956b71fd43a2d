// Who is calling: the admin, a paired device, or nobody. Every route but GET /health asks this first.
import type { Db } from "../db/database.ts";
import { hashToken, sameHash } from "./tokens.ts";

export type Principal = { kind: "admin" } | { kind: "device"; deviceId: string };

export class Authenticator {
  private readonly deviceByHash;

  constructor(
    db: Db,
    private readonly adminTokenHash: string,
  ) {
    this.deviceByHash = db.prepare<[string], { id: string }>("SELECT id FROM devices WHERE token_hash = ? AND revoked_at IS NULL");
  }

  /** The principal a bearer token names, or undefined for a missing, wrong or revoked token. */
  identify(authorization: string | undefined): Principal | undefined {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!token) return undefined;
    const hash = hashToken(token);
    if (sameHash(hash, this.adminTokenHash)) return { kind: "admin" };
    const device = this.deviceByHash.get(hash);
    return device ? { kind: "device", deviceId: device.id } : undefined;
  }
}
