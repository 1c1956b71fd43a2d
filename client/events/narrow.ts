// Typed narrowing of raw events. Listeners receive events as they came off the wire (only the common fields
// are checked on the way in); `isEvent` checks the whole shape of one type with its zod schema before it lets
// TypeScript treat the event as that type, so a narrowed event is never a lie.
import type { z } from "zod";
import { coreEventSchemaByType, type AnyEvent, type CoreEvent } from "../wire/events.ts";
import { notificationEventSchemaByType, type NotificationEvent } from "../wire/notification.ts";

export type KnownEvent = CoreEvent | NotificationEvent;
export type KnownEventType = KnownEvent["type"];
export type EventOfType<T extends KnownEventType> = Extract<KnownEvent, { type: T }>;

// Keyed by name, so a question about one type builds that type's schema only (docs/app.md "Start-up", SU12).
const schemaByType: ReadonlyMap<string, z.ZodType> = new Map(
  Object.entries({ ...coreEventSchemaByType, ...notificationEventSchemaByType }),
);

export function isKnownType(type: string): type is KnownEventType {
  return schemaByType.has(type);
}

/** True when `event` has type `type` and every field that type requires, in the right form. */
export function isEvent<T extends KnownEventType>(event: AnyEvent, type: T): event is AnyEvent & EventOfType<T> {
  return event.type === type && conforms(event);
}

/** Whether an event of a known type matches its schema (unknown types never do). */
export function conforms(event: AnyEvent): boolean {
  const schema = schemaByType.get(event.type);
  return schema !== undefined && schema.safeParse(event).success;
}
