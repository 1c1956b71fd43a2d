// Which server id this start uses. The id names the bridge topic every paired device listens on, so it must not
// change under them: devices paired under one id would sit on a dead topic, told nothing. The id in use is kept in
// the database (meta `server_id_in_use`); `server.server_id` in the config may set it only while no live device is
// paired under another, and otherwise stops the start with one line saying how out (docs/security.md "Server id").
import { randomUUID } from "node:crypto";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";
import { ConfigError } from "./load.ts";

/** The id devices were paired under, written by every start since this check exists. */
const IN_USE_KEY = "server_id_in_use";
/** The id generated when the config sets none (older starts wrote only this one). */
const GENERATED_KEY = "server_id";

export function resolveServerId(db: Db, configured: string | undefined): string {
  const meta = new Meta(db);
  const inUse = meta.get(IN_USE_KEY);
  // The first start with this check takes the id the previous version used (the config's, else the generated one),
  // so devices paired under either are never mistaken for strays.
  if (inUse === undefined)
    return setAndReturn(meta, configured ?? meta.getOrCreate(GENERATED_KEY, () => `srv_${randomUUID().slice(0, 8)}`));
  if (configured === undefined || configured === inUse) return inUse;
  const paired = livePairedDevices(db);
  if (paired > 0) {
    throw new ConfigError(
      `config error at server.server_id: "${configured}" would strand the ${paired} device(s) paired under "${inUse}"; ` +
        `set it back to "${inUse}" (or remove it), or revoke those devices first and pair them again`,
    );
  }
  return setAndReturn(meta, configured);
}

function livePairedDevices(db: Db): number {
  return db.prepare<[], { n: number }>("SELECT count(*) AS n FROM devices WHERE revoked_at IS NULL").get()!.n;
}

function setAndReturn(meta: Meta, id: string): string {
  meta.set(IN_USE_KEY, id);
  return id;
}
