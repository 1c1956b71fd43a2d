// Small durable key/value facts of the server: the store's epoch, the pruning mark, the forwarder's cursor.
import type { Db } from "./database.ts";

export class Meta {
  private readonly getStatement;
  private readonly setStatement;

  constructor(db: Db) {
    this.getStatement = db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?");
    this.setStatement = db.prepare<[string, string]>(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    );
  }

  get(key: string): string | undefined {
    return this.getStatement.get(key)?.value;
  }

  set(key: string, value: string): void {
    this.setStatement.run(key, value);
  }

  /** Returns the stored value, storing `create()` first when there is none. */
  getOrCreate(key: string, create: () => string): string {
    const existing = this.get(key);
    if (existing !== undefined) return existing;
    const value = create();
    this.set(key, value);
    return value;
  }
}
