// The mobile dismissal cache (UI rule 5, docs/client.md "The rules, numbered" and "Dismiss"). An entry pins the exact
// revision the user dismissed: the record stays hidden at that revision, the dismiss is retried with that same
// expected_revision until the server settles it, and the entry is never moved to a newer revision. It is kept in
// the app's storage, per owning connection, so a restart (rehydration) retries too.
import { z } from "zod";
import type { StorageAdapter } from "../storage/storage.ts";

export const dismissalEntrySchema = z.object({
  connection_id: z.string(),
  scope: z.enum(["application", "session"]),
  session_id: z.string().optional(),
  notification_id: z.string(),
  /** The exact dismissed revision (or updated_at for a legacy record). */
  revision: z.union([z.number().int().positive(), z.string()]),
  /** When the user dismissed it (ms since epoch, from the injected clock). */
  dismissed_at: z.number(),
});
export type DismissalEntry = z.infer<typeof dismissalEntrySchema>;

const fileSchema = z.array(z.unknown());

export function entryKey(entry: Pick<DismissalEntry, "scope" | "session_id" | "notification_id">): string {
  return `${entry.scope}:${entry.session_id ?? ""}:${entry.notification_id}`;
}

export class DismissalCache {
  private readonly entries = new Map<string, DismissalEntry>();
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: StorageAdapter,
    private readonly connectionId: string,
  ) {}

  private get storageKey(): string {
    return `dismissals:${this.connectionId}`;
  }

  /** Reads the persisted entries of this connection; malformed ones (or another connection's) are skipped. */
  async load(): Promise<void> {
    const text = await this.storage.getItem(this.storageKey);
    if (text === null) return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return;
    }
    const list = fileSchema.safeParse(raw);
    for (const item of list.success ? list.data : []) {
      const entry = dismissalEntrySchema.safeParse(item);
      if (entry.success && entry.data.connection_id === this.connectionId)
        this.entries.set(entryKey(entry.data), entry.data);
    }
  }

  get(key: Pick<DismissalEntry, "scope" | "session_id" | "notification_id">): DismissalEntry | undefined {
    return this.entries.get(entryKey(key));
  }

  all(): DismissalEntry[] {
    return [...this.entries.values()];
  }

  /**
   * Adds an entry unless one exists: the first dismissed revision stays (it is never replaced by a newer one).
   * The entry is visible at once; `persisted` settles when storage has it.
   */
  add(entry: DismissalEntry): { entry: DismissalEntry; persisted: Promise<void> } {
    const existing = this.entries.get(entryKey(entry));
    if (existing) return { entry: existing, persisted: this.writes };
    this.entries.set(entryKey(entry), entry);
    return { entry, persisted: this.persist() };
  }

  async drop(entry: DismissalEntry): Promise<void> {
    if (this.entries.get(entryKey(entry)) !== entry) return;
    this.entries.delete(entryKey(entry));
    await this.persist();
  }

  /** Writes are chained so they land in call order even with an async storage. */
  private persist(): Promise<void> {
    const snapshot = JSON.stringify(this.all());
    this.writes = this.writes.then(() => this.storage.setItem(this.storageKey, snapshot)).catch(() => undefined);
    return this.writes;
  }
}
