// Notification records and events for client tests, valid against the wire schema unless told otherwise.
import { formatEventId } from "../../../client/wire/event-id.ts";
import type { AnyEvent } from "../../../client/wire/events.ts";

export type RecordPatch = Record<string, unknown>;

export function record(id: string, revision: number, patch: RecordPatch = {}): Record<string, unknown> {
  return {
    id,
    revision,
    key: `key-${id}`,
    kind: "notification",
    status: "pending",
    severity: "info",
    title: `title ${id}`,
    created_at: "2025-01-01T00:00:00.000Z",
    updated_at: `2025-01-01T00:00:${String(revision).padStart(2, "0")}.000Z`,
    source: { plugin: "test" },
    display: { presentation: "banner" },
    retention: { version: 1, policy: "until_resolved" },
    model_visibility: "hidden",
    ...patch,
  };
}

let sequence = 1;
export function appEvent(type: string, rec: Record<string, unknown>): AnyEvent {
  return {
    event_id: formatEventId(sequence++),
    type,
    notification_id: rec.id,
    revision: rec.revision,
    notification: rec,
  };
}

export function sessionEvent(type: string, sessionId: string, rec: Record<string, unknown>): AnyEvent {
  return { ...appEvent(type, rec), session_id: sessionId };
}
