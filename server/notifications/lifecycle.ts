// The one table of lifecycle moves (docs/notifications.md "States and transitions"). Every status change the service makes
// is looked up here; a move that is not a row is refused. Content updates that keep the status are not
// state changes and are allowed on any active record (the ordinary table's pending -> pending row).
import type { NotificationKind, NotificationRecord, NotificationStatus } from "../../client/wire/notification.ts";

export type Move = "update" | "dismiss" | "resolve" | "expire" | "respond" | "suspend" | "cancel";

interface Transition {
  kind: NotificationKind;
  from: NotificationStatus;
  move: Move;
  to: NotificationStatus;
}

export const TRANSITIONS: readonly Transition[] = [
  // Ordinary lifecycle
  { kind: "notification", from: "pending", move: "update", to: "pending" },
  { kind: "notification", from: "pending", move: "dismiss", to: "dismissed" },
  { kind: "notification", from: "pending", move: "resolve", to: "resolved" },
  { kind: "notification", from: "pending", move: "expire", to: "expired" },
  // Interaction-compatible lifecycle (its six rows) ...
  { kind: "interaction", from: "pending_response", move: "respond", to: "responded" },
  { kind: "interaction", from: "responded", move: "resolve", to: "resolved" },
  { kind: "interaction", from: "pending_response", move: "suspend", to: "suspended" },
  { kind: "interaction", from: "suspended", move: "respond", to: "responded" },
  { kind: "interaction", from: "pending_response", move: "cancel", to: "cancelled" },
  { kind: "interaction", from: "pending_response", move: "expire", to: "expired" },
  // ... and content updates of an active interaction, which keep its status.
  { kind: "interaction", from: "pending_response", move: "update", to: "pending_response" },
  { kind: "interaction", from: "responded", move: "update", to: "responded" },
  { kind: "interaction", from: "suspended", move: "update", to: "suspended" },
];

const TERMINAL: ReadonlySet<NotificationStatus> = new Set(["dismissed", "resolved", "expired", "cancelled"]);

/** Terminal states are final (terminal-state rule 1): no row leaves them. */
export function isTerminal(status: NotificationStatus): boolean {
  return TERMINAL.has(status);
}

export function isActive(record: Pick<NotificationRecord, "status">): boolean {
  return !isTerminal(record.status);
}

/** The status a new occurrence starts in. */
export function initialStatus(kind: NotificationKind): NotificationStatus {
  return kind === "interaction" ? "pending_response" : "pending";
}

/** Where `move` takes a record, or undefined when the table has no such row. */
export function nextStatus(
  record: Pick<NotificationRecord, "kind" | "status">,
  move: Move,
): NotificationStatus | undefined {
  return TRANSITIONS.find((t) => t.kind === record.kind && t.from === record.status && t.move === move)?.to;
}

/** Retention boundaries (request completion, server restart) expire only records still waiting (rule 2). */
export function isAwaiting(record: Pick<NotificationRecord, "status">): boolean {
  return record.status === "pending" || record.status === "pending_response";
}
