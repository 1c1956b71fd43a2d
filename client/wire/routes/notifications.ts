// Notification routes of a reader (docs/notifications.md "Routes"): list and dismiss, for the application and for one
// session. A list answers a JSON array of records (active ones; include_terminal=true adds terminal ones). A dismiss
// answers the dismissed record; at another revision, or of a record that cannot be dismissed, a 409 whose body is
// the current record itself (`conflictRecord`); an unknown id or session is 404.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { notificationListBodySchema } from "../http.ts";
import { sessionParams } from "./params.ts";
import { defineRoute } from "./route.ts";

const listQuery = lazySchema(() =>
  z
    .object({
      include_terminal: z
        .enum(["true", "false"], "include_terminal must be true or false")
        .transform((v) => v === "true")
        .optional(),
    })
    .strict(),
);

/** A revision number, or the updated_at of a legacy record without revision. */
export const expectedRevisionSchema = lazySchema(() => z.union([z.number().int().positive(), z.string().min(1)]));

const dismissBody = lazySchema(() =>
  z
    .object({
      expected_revision: expectedRevisionSchema.optional(),
      reason: z.string().max(1000).optional(),
    })
    .strict()
    .default({}),
);

/** A dismiss's answer: the record (servers before it answered `{notification: record}`); checked record by record
 *  by the library, so it stays `unknown` here. */
const dismissAnswer = z.unknown();

const notificationId = { notification_id: z.string().min(1) };

export const applicationNotificationsRoute = defineRoute("GET", "/application/notifications", () => ({
  query: listQuery,
  answer: notificationListBodySchema,
}));

export const sessionNotificationsRoute = defineRoute("GET", "/sessions/:session_id/notifications", () => ({
  params: sessionParams,
  query: listQuery,
  answer: notificationListBodySchema,
  errors: ["session_not_found"],
}));

export const dismissApplicationNotificationRoute = defineRoute(
  "POST",
  "/application/notifications/:notification_id/dismiss",
  () => ({
    params: z.object(notificationId).strict(),
    body: dismissBody,
    answer: dismissAnswer,
    errors: ["notification_not_found", "notification_conflict", "notice_not_dismissable"],
    conflictRecord: true,
  }),
);

export const dismissSessionNotificationRoute = defineRoute(
  "POST",
  "/sessions/:session_id/notifications/:notification_id/dismiss",
  () => ({
    params: sessionParams.unwrap().extend(notificationId).strict(),
    body: dismissBody,
    answer: dismissAnswer,
    errors: ["session_not_found", "notification_not_found", "notification_conflict"],
    conflictRecord: true,
  }),
);
