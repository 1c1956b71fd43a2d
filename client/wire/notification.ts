// The notification record and its events (docs/notifications.md "The record", "Events").
// One schema for the record, shared by the server (which validates what it stores and answers) and the
// client (which drops malformed records). Unknown fields ride along: records are loose, and ui_effects keeps
// unknown JSON fields so a newer producer's effects survive an older server.
//
// Event payload (docs/notifications.md "Events"): every notification event carries the full record in
// `notification`, plus `notification_id` and `revision` for cheap de-duplication. Session events carry
// `session_id`; application events never do. `request_id` is never set on the event itself (only inside the
// record), so `request_completed` stays the final event of its request.
import { z } from "zod";
import { byTypeName, lazySchema, onFirstUse } from "./built-on-first-use.ts";
import { eventIdSchema } from "./event-id.ts";

export const presentationSchema = z.enum(["banner", "inline", "modal"]);
export type Presentation = z.infer<typeof presentationSchema>;

/** The action-display payload: a presentation plus whatever the renderer understands. */
export const displaySchema = lazySchema(() => z.looseObject({ presentation: presentationSchema }));
export type Display = z.infer<typeof displaySchema>;

/**
 * Revision-scoped UI commands. Known fields must have their documented form; `navigate_to_session_id` is
 * refused (docs/notifications.md "The record"); any other JSON-compatible field is preserved for consumers that know it.
 */
export const uiEffectsSchema = lazySchema(() =>
  z
    .object({
      reload_session_ids: z
        .array(z.string().min(1, "a session id must not be empty"))
        .refine((ids) => new Set(ids).size === ids.length, "reload_session_ids must not repeat")
        .optional(),
      reload_sessions_list: z.boolean().optional(),
      reload_application_actions: z.boolean().optional(),
    })
    .catchall(z.json())
    .superRefine((effects, check) => {
      if (Object.hasOwn(effects, "navigate_to_session_id")) {
        check.addIssue({
          code: "custom",
          path: ["navigate_to_session_id"],
          message: "navigate_to_session_id is not supported",
        });
      }
    }),
);
export type UiEffects = z.infer<typeof uiEffectsSchema>;

export const retentionPolicySchema = z.enum([
  "until_resolved",
  "ttl",
  "until_request_complete",
  "until_server_restart",
]);
export type RetentionPolicy = z.infer<typeof retentionPolicySchema>;

/** Versioned and extensible; `owner_epoch` is stamped by the host for until_server_restart. */
export const retentionSchema = lazySchema(() =>
  z.looseObject({
    version: z.number().int().positive(),
    policy: retentionPolicySchema,
    expires_at: z.iso.datetime({ offset: true }).optional(),
    owner_epoch: z.string().optional(),
  }),
);
export type Retention = z.infer<typeof retentionSchema>;

export const notificationKindSchema = z.enum(["notification", "interaction"]);
export type NotificationKind = z.infer<typeof notificationKindSchema>;

export const notificationStatusSchema = z.enum([
  "pending",
  "dismissed",
  "resolved",
  "expired",
  "pending_response",
  "responded",
  "suspended",
  "cancelled",
]);
export type NotificationStatus = z.infer<typeof notificationStatusSchema>;

export const severitySchema = z.enum(["info", "success", "warning", "error"]);
export type Severity = z.infer<typeof severitySchema>;

const detailSchema = lazySchema(() => z.record(z.string(), z.json()));

export const notificationRecordSchema = lazySchema(() =>
  z.looseObject({
    id: z.string().min(1),
    /** Absent only on legacy records, whose updated_at is their expected-revision token. */
    revision: z.number().int().positive().optional(),
    key: z.string().min(1),
    kind: notificationKindSchema,
    status: notificationStatusSchema,
    severity: severitySchema,
    title: z.string(),
    body: z.string().optional(),
    created_at: z.string(),
    updated_at: z.string(),
    request_id: z.string().optional(),
    /** Set on session notifications: the session that owns the record. */
    session_id: z.string().optional(),
    operation_id: z.string().optional(),
    source: z.looseObject({ plugin: z.string() }),
    display: displaySchema,
    ui_effects: uiEffectsSchema.optional(),
    resolution: detailSchema.optional(),
    dismissal: detailSchema.optional(),
    expiration: detailSchema.optional(),
    response: detailSchema.optional(),
    timeout: detailSchema.optional(),
    retention: retentionSchema,
    model_visibility: z.literal("hidden"),
  }),
);
export type NotificationRecord = z.infer<typeof notificationRecordSchema>;

/** GET /application/notifications and GET /sessions/{id}/notifications: a JSON array of records (docs/notifications.md "Routes"). */
export const notificationListSchema = lazySchema(() => z.array(notificationRecordSchema));
export type NotificationList = z.infer<typeof notificationListSchema>;

const eventCommon = onFirstUse(() => ({
  event_id: eventIdSchema,
  timestamp: z.string().optional(),
  notification_id: z.string(),
  revision: z.number().int().positive(),
  notification: notificationRecordSchema,
}));

function applicationEvent<T extends string>(type: T) {
  return z.looseObject({ ...eventCommon(), type: z.literal(type), session_id: z.undefined().optional() });
}
function sessionEvent<T extends string>(type: T) {
  return z.looseObject({ ...eventCommon(), type: z.literal(type), session_id: z.string() });
}

export const applicationNotificationCreatedEvent = lazySchema(() =>
  applicationEvent("application_notification_created"),
);
export const applicationNotificationUpdatedEvent = lazySchema(() =>
  applicationEvent("application_notification_updated"),
);
export const applicationNotificationDismissedEvent = lazySchema(() =>
  applicationEvent("application_notification_dismissed"),
);
export const applicationNotificationExpiredEvent = lazySchema(() =>
  applicationEvent("application_notification_expired"),
);
export const sessionNotificationCreatedEvent = lazySchema(() => sessionEvent("session_notification_created"));
export const sessionNotificationUpdatedEvent = lazySchema(() => sessionEvent("session_notification_updated"));
export const sessionNotificationResolvedEvent = lazySchema(() => sessionEvent("session_notification_resolved"));
export const sessionNotificationDismissedEvent = lazySchema(() => sessionEvent("session_notification_dismissed"));
export const sessionNotificationExpiredEvent = lazySchema(() => sessionEvent("session_notification_expired"));

export const notificationEventSchemaByType = byTypeName({
  application_notification_created: applicationNotificationCreatedEvent,
  application_notification_updated: applicationNotificationUpdatedEvent,
  application_notification_dismissed: applicationNotificationDismissedEvent,
  application_notification_expired: applicationNotificationExpiredEvent,
  session_notification_created: sessionNotificationCreatedEvent,
  session_notification_updated: sessionNotificationUpdatedEvent,
  session_notification_resolved: sessionNotificationResolvedEvent,
  session_notification_dismissed: sessionNotificationDismissedEvent,
  session_notification_expired: sessionNotificationExpiredEvent,
});

type NotificationEventOption = (typeof notificationEventSchemaByType)[keyof typeof notificationEventSchemaByType];
const notificationEventSchemas = Object.values(notificationEventSchemaByType) as [
  NotificationEventOption,
  ...NotificationEventOption[],
];

export const notificationEventSchema = lazySchema(() => z.discriminatedUnion("type", notificationEventSchemas));
export type NotificationEvent = z.infer<typeof notificationEventSchema>;
export type NotificationEventType = NotificationEvent["type"];
