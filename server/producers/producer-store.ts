// Producer tokens (docs/notifications.md "Producers"), like Gotify's application tokens: the admin names a producer
// (a backup script, a home server) and gets a token once; with it the producer may publish and resolve notifications
// and nothing else (server/auth/producer-scope.ts). Only the token's SHA-256 is stored; revoking deletes the row,
// so the token stops working at the next request.
import { randomUUID } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { notFound } from "../errors.ts";
import { generateToken } from "../auth/tokens.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";

export interface ProducerInfo {
  producer_id: string;
  name: string;
  created_at: string;
}

type Row = { id: string; name: string; created_at: number };

const infoOf = (row: Row): ProducerInfo => ({
  producer_id: row.id,
  name: row.name,
  created_at: new Date(row.created_at).toISOString(),
});

export class ProducerStore {
  private readonly insert;
  private readonly selectAll;
  private readonly remove;

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    // A producer belongs to a person (docs/people.md): the acting admin's when none is named (scripts).
    this.insert = db.prepare<[string, string, string, number, string | null]>(
      `INSERT INTO producers (id, name, token_hash, created_at, person_id) VALUES (?, ?, ?, ?, coalesce(?,
        (SELECT id FROM people WHERE removed_at IS NULL AND role = 'admin' ORDER BY created_at, rowid LIMIT 1)))`,
    );
    this.selectAll = db.prepare<[], Row>("SELECT id, name, created_at FROM producers ORDER BY created_at, id");
    this.remove = db.prepare<[string]>("DELETE FROM producers WHERE id = ?");
  }

  /** A new producer of `personId` and its token, in clear this once. */
  create(name: string, personId?: string): ProducerInfo & { token: string } {
    const id = `prd_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const token = generateToken(32);
    const createdAt = this.clock.now();
    this.insert.run(id, name, sha256Hex(token), createdAt, personId ?? null);
    return { ...infoOf({ id, name, created_at: createdAt }), token };
  }

  list(): ProducerInfo[] {
    return this.selectAll.all().map(infoOf);
  }

  /** Revokes a producer: its token is refused from the next request on. */
  revoke(id: string): void {
    if (this.remove.run(id).changes === 0) throw notFound("producer_not_found", `no producer "${id}"`);
  }
}
