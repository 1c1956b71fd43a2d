// Answering a session interaction (docs/tools.md "Approvals"): the responded record; a 409 whose body is the current
// record itself (`conflictRecord`) when it is not an interaction waiting for an answer, its revision is not the
// expected one, or the request it belongs to no longer runs; 404 for an unknown session or record.
import { z } from "zod";
import { notificationRecordSchema } from "../notification.ts";
import { expectedRevisionSchema } from "./notifications.ts";
import { defineRoute } from "./route.ts";

export const respondRoute = defineRoute("POST", "/sessions/:session_id/notifications/:notification_id/respond", () => ({
  params: z.object({ session_id: z.string().min(1), notification_id: z.string().min(1) }).strict(),
  body: z
    .object({
      response: z.enum(["approve", "deny"]),
      /** What the model is told with a denial (and kept on the record with either answer). */
      message: z.string().max(4000).optional(),
      expected_revision: expectedRevisionSchema.optional(),
    })
    .strict(),
  answer: notificationRecordSchema,
  errors: ["session_not_found", "notification_not_found", "notification_conflict"],
  conflictRecord: true,
}));
