// Notifications from outside (docs/notifications.md "Producers"): a producer token (or the admin token) publishes a
// notification by key, creating it (201) or updating its active occurrence (200), and resolves one by key, at
// application or session scope. Only kind "notification": interactions belong to the runner and its approvals.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { producerInputSchema } from "../notification-input.ts";
import { notificationRecordSchema } from "../notification.ts";
import { sessionParams } from "./params.ts";
import { defineRoute } from "./route.ts";

const resolveBody = lazySchema(() =>
  z
    .object({
      key: z.string().min(1),
      detail: z.record(z.string(), z.json()).optional(),
      operation_id: z.string().min(1).optional(),
    })
    .strict(),
);

const errors = ["forbidden", "notification_conflict", "notification_not_found"] as const;

export const publishApplicationNotificationRoute = defineRoute("POST", "/application/notifications", () => ({
  body: producerInputSchema,
  answer: notificationRecordSchema,
  /** 200 when the key's active occurrence was updated. */
  status: 201,
  errors,
}));

export const resolveApplicationNotificationRoute = defineRoute("POST", "/application/notifications/resolve", () => ({
  body: resolveBody,
  answer: notificationRecordSchema,
  errors,
}));

export const publishSessionNotificationRoute = defineRoute("POST", "/sessions/:session_id/notifications", () => ({
  params: sessionParams,
  body: producerInputSchema,
  answer: notificationRecordSchema,
  /** 200 when the key's active occurrence was updated. */
  status: 201,
  errors: [...errors, "session_not_found"],
}));

export const resolveSessionNotificationRoute = defineRoute(
  "POST",
  "/sessions/:session_id/notifications/resolve",
  () => ({
    params: sessionParams,
    body: resolveBody,
    answer: notificationRecordSchema,
    errors: [...errors, "session_not_found"],
  }),
);
