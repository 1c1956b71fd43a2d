// One stored notification record with every field the wire schema asks for, for tests and benchmarks that write
// records straight into a store, a log or a database row. Fields given override the defaults.
import type { NotificationRecord } from "../../client/wire/notification.ts";

export function notificationRecord(fields: Partial<NotificationRecord> = {}): NotificationRecord {
  return {
    id: "n1",
    revision: 1,
    key: "k1",
    kind: "notification",
    status: "pending",
    severity: "info",
    title: "t",
    created_at: "2030-01-01T00:00:00.000Z",
    updated_at: "2030-01-01T00:00:00.000Z",
    source: { plugin: "p" },
    display: { presentation: "banner" },
    retention: { version: 1, policy: "until_resolved" },
    model_visibility: "hidden",
    ...fields,
  };
}

/** A record as it was stored before notifications had revisions. */
export function legacyNotificationRecord(
  fields: Partial<NotificationRecord> = {},
): Omit<NotificationRecord, "revision"> {
  const { revision: _revision, ...legacy } = notificationRecord(fields);
  return legacy;
}
