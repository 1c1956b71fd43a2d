// Which server id this start uses. The id names the bridge topic every paired device listens on, so it must not
// change under them: devices paired under one id would sit on a dead topic, told nothing. The id in use is kept in
// the database (meta `server_id`); `server.server_id` in the config may set it only while no live device is paired
// under another, and otherwise stops the start with one line saying how out (docs/security.md "Server id").
import { randomUUID } from "node:crypto";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";
import { ConfigError } from "./load.ts";

const SERVER_ID_KEY = "server_id";

export function resolveServerId(db: Db, configured: string | undefined): string {
  const meta = new Meta(db);
  const stored = meta.get(SERVER_ID_KEY);
  if (configured === undefined) return stored ?? setAndReturn(meta, `srv_${randomUUID().slice(0, 8)}`);
  if (stored === undefined || stored === configured) return setAndReturn(meta, configured);
  const paired = livePairedDevices(db);
  if (paired > 0) {
    throw new ConfigError(
      `config error at server.server_id: "${configured}" would strand the ${paired} device(s) paired under "${stored}"; ` +
        `set it back to "${stored}" (or remove it), or revoke those devices first and pair them again`,
    );
  }
  return setAndReturn(meta, configured);
}

function livePairedDevices(db: Db): number {
  return db.prepare<[], { n: number }>("SELECT count(*) AS n FROM devices WHERE revoked_at IS NULL").get()!.n;
}

function setAndReturn(meta: Meta, id: string): string {
  meta.set(SERVER_ID_KEY, id);
  return id;
}
