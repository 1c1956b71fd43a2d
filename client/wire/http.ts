// Bodies of the HTTP answers the client library reads (docs/events.md "`GET /events`", docs/notifications.md "Routes").
// Events stay `unknown` here: the client checks each one on its own, so one bad event never drops a page.
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";
import { eventIdSchema } from "./event-id.ts";
import { messageSchema } from "./messages.ts";

/** GET /events: a page of events, where to continue, and the store's identity. */
export const eventsPageSchema = lazySchema(() =>
  z.looseObject({
    events: z.array(z.unknown()),
    /** Bootstrap mode only (no since_id, session_id or request_id). */
    latest_event_id: eventIdSchema.optional(),
    next_since_id: eventIdSchema,
    has_more: z.boolean().optional(),
    epoch: z.string().min(1),
  }),
);
export type EventsPage = z.infer<typeof eventsPageSchema>;

/** GET /sessions/{id}/messages: the messages and the event cursor they reflect (read in one snapshot). */
export const messagesSnapshotSchema = lazySchema(() =>
  z.looseObject({
    session_id: z.string(),
    version: z.number().int(),
    messages: z.array(messageSchema),
    cursor_event_id: eventIdSchema,
    /** With `limit`: how many shown messages the chat has and the index of the first one given. */
    messages_total: z.number().int().nonnegative().optional(),
    messages_start: z.number().int().nonnegative().optional(),
  }),
);
export type MessagesSnapshot = z.infer<typeof messagesSnapshotSchema>;

/**
 * GET /application/notifications and GET /sessions/{id}/notifications: a bare JSON array of records (docs/notifications.md "Routes"), or
 * `{notifications: [...]}` from servers before that change. Normalised to the array; records stay `unknown` here
 * (checked one by one, so one malformed record never drops a snapshot).
 */
export const notificationListBodySchema = lazySchema(() =>
  z
    .union([z.array(z.unknown()), z.looseObject({ notifications: z.array(z.unknown()) })])
    .transform((body) => (Array.isArray(body) ? body : body.notifications)),
);
