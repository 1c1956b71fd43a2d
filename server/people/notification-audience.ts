// Application notifications and people (docs/people.md "Notifications"): a record is for everyone unless its
// `audience` names people, and on a server with more than one person, dismissing one meant for everyone dismisses it
// for the caller's person only (a row of notification_dismissals); the others still see it active.
import type { NotificationRecord } from "../../client/wire/notification.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";

export class NotificationAudience {
  private readonly livePeople;
  private readonly dismissedBy;
  private readonly insertDismissal;

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.livePeople = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM people WHERE removed_at IS NULL");
    this.dismissedBy = db.prepare<[string], { notification_id: string }>(
      "SELECT notification_id FROM notification_dismissals WHERE person_id = ?",
    );
    this.insertDismissal = db.prepare<[string, string, number]>(
      "INSERT OR IGNORE INTO notification_dismissals (notification_id, person_id, dismissed_at) VALUES (?, ?, ?)",
    );
  }

  /** Whether people matter to application notifications: only when the server has more than one. */
  shared(): boolean {
    return this.livePeople.get()!.n > 1;
  }

  /** What `personId` sees of a list of records: those meant for them that they have not dismissed. */
  visible(personId: string, records: readonly NotificationRecord[]): NotificationRecord[] {
    const dismissed = new Set(this.dismissedBy.all(personId).map((row) => row.notification_id));
    return records.filter((record) => isFor(personId, record) && !dismissed.has(record.id));
  }

  /** Whether the person may see (and so dismiss) the record. */
  isFor(personId: string, record: NotificationRecord): boolean {
    return isFor(personId, record);
  }

  /** Whether a dismissal of this record by one person is theirs alone (it is meant for everyone, people share it). */
  dismissesForOne(record: NotificationRecord): boolean {
    return !Array.isArray((record as { audience?: unknown }).audience) && this.shared();
  }

  dismissFor(notificationId: string, personId: string): void {
    this.insertDismissal.run(notificationId, personId, this.clock.now());
  }
}

function isFor(personId: string, record: NotificationRecord): boolean {
  const audience = (record as { audience?: unknown }).audience;
  return !Array.isArray(audience) || audience.includes(personId);
}
