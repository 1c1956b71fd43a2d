// GET /events (docs/events.md "`GET /events` rules", "The log"): bootstrap, the session cursor default, compaction of
// the response window, paging, epoch checks and wait_ms long-polling.
import { z } from "zod";
import { parseEventId } from "../event-id.ts";
import { eventsPageSchema } from "../http.ts";
import { defineRoute } from "./route.ts";

/** The longest a long-poll waits for a matching commit. */
export const MAX_WAIT_MS = 30_000;

export const eventsRoute = defineRoute("GET", "/events", () => ({
  query: z
    .object({
      since_id: z
        .string()
        .refine((v) => parseEventId(v) !== undefined, "since_id must be a decimal event id of at most 20 digits")
        .optional(),
      session_id: z.string().min(1).optional(),
      request_id: z.string().min(1).optional(),
      epoch: z.string().min(1).optional(),
      limit: z.coerce.number().int().min(1).optional(),
      wait_ms: z.coerce.number().int().min(0).max(MAX_WAIT_MS).optional(),
    })
    .strict(),
  answer: eventsPageSchema,
  errors: ["cursor_expired", "session_not_found"],
}));
