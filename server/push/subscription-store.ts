// Push subscriptions and per-device push settings in SQLite (migration 8). A subscription belongs to one device:
// registering an endpoint another device held moves it (a browser re-paired as a new device keeps its endpoint).
import type { Statement } from "better-sqlite3";
import type { Db } from "../db/database.ts";

export interface StoredSubscription {
  endpoint: string;
  device_id: string;
  keys: { p256dh: string; auth: string };
  /** The person of the device (docs/people.md): a push about a chat goes only to its people's devices. */
  person_id?: string | undefined;
}

type Row = { endpoint: string; device_id: string; p256dh: string; auth: string; person_id?: string | null };

const toSubscription = (row: Row): StoredSubscription => ({
  endpoint: row.endpoint,
  device_id: row.device_id,
  keys: { p256dh: row.p256dh, auth: row.auth },
  ...(row.person_id ? { person_id: row.person_id } : {}),
});

export class SubscriptionStore {
  private readonly live: Statement<[], Row>;
  private readonly byDevice: Statement<[string], Row>;

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {
    // Only live devices' subscriptions are ever pushed to: a revoked device's rows are deleted with it, and the join
    // keeps a row that outlived its device (a crash between the two) from being used.
    this.live = db.prepare(
      "SELECT s.endpoint, s.device_id, s.p256dh, s.auth, d.person_id FROM push_subscriptions s JOIN devices d ON d.id = s.device_id WHERE d.revoked_at IS NULL",
    );
    this.byDevice = db.prepare(
      "SELECT endpoint, device_id, p256dh, auth FROM push_subscriptions WHERE device_id = ? ORDER BY created_at",
    );
  }

  /**
   * Stores (or moves to `deviceId`) a subscription; the device's oldest ones beyond `maxPerDevice` are dropped, so
   * one token cannot grow the table without bound.
   */
  save(subscription: StoredSubscription, maxPerDevice: number): void {
    const { endpoint, device_id, keys } = subscription;
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO push_subscriptions (endpoint, device_id, p256dh, auth, created_at, person_id)
           VALUES (?, ?, ?, ?, ?, (SELECT person_id FROM devices WHERE id = ?))
           ON CONFLICT (endpoint) DO UPDATE SET device_id = excluded.device_id, p256dh = excluded.p256dh, auth = excluded.auth,
             created_at = excluded.created_at, person_id = excluded.person_id`,
        )
        .run(endpoint, device_id, keys.p256dh, keys.auth, this.now(), device_id);
      const held = this.byDevice.all(device_id);
      for (const row of held.slice(0, Math.max(0, held.length - maxPerDevice))) this.removeEndpoint(row.endpoint);
    })();
  }

  /** Removes the device's subscription at `endpoint`; another device's is left alone. */
  remove(deviceId: string, endpoint: string): boolean {
    return (
      this.db.prepare("DELETE FROM push_subscriptions WHERE endpoint = ? AND device_id = ?").run(endpoint, deviceId)
        .changes > 0
    );
  }

  /** Removes a subscription the push service said is gone (404/410). */
  removeEndpoint(endpoint: string): void {
    this.db.prepare("DELETE FROM push_subscriptions WHERE endpoint = ?").run(endpoint);
  }

  /** Removes and returns every subscription of a device (its revocation), with its settings. */
  removeDevice(deviceId: string): StoredSubscription[] {
    return this.db.transaction(() => {
      const rows = this.byDevice.all(deviceId);
      this.db.prepare("DELETE FROM push_subscriptions WHERE device_id = ?").run(deviceId);
      this.db.prepare("DELETE FROM push_device_settings WHERE device_id = ?").run(deviceId);
      return rows.map(toSubscription);
    })();
  }

  ofDevice(deviceId: string): StoredSubscription[] {
    return this.byDevice.all(deviceId).map(toSubscription);
  }

  /** Every live device's subscriptions. */
  all(): StoredSubscription[] {
    return this.live.all().map(toSubscription);
  }

  /** Devices that asked for previews (text in their pushes). */
  previewDevices(): Set<string> {
    return new Set(
      this.db
        .prepare<[], { device_id: string }>("SELECT device_id FROM push_device_settings WHERE preview = 1")
        .all()
        .map((row) => row.device_id),
    );
  }

  preview(deviceId: string): boolean {
    return (
      this.db
        .prepare<[string], { preview: number }>("SELECT preview FROM push_device_settings WHERE device_id = ?")
        .get(deviceId)?.preview === 1
    );
  }

  setPreview(deviceId: string, preview: boolean): void {
    this.db
      .prepare(
        "INSERT INTO push_device_settings (device_id, preview) VALUES (?, ?) ON CONFLICT (device_id) DO UPDATE SET preview = excluded.preview",
      )
      .run(deviceId, preview ? 1 : 0);
  }
}
