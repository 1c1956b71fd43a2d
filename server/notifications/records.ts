// Pure record building: a new occurrence from producer input, content updates, and the store-assigned
// fields (revision, timestamps). No I/O here; the service decides when to call these inside a mutation.
import { randomUUID } from "node:crypto";
import type { Display, NotificationRecord, NotificationStatus, Retention } from "../../client/wire/notification.ts";
import { NotificationValidationError } from "./errors.ts";
import { RETENTION_VERSION, type ParsedPatchInput, type ParsedProducerInput } from "./input.ts";
import { initialStatus } from "./lifecycle.ts";

export type NotificationScope = { kind: "application" } | { kind: "session"; sessionId: string };

export interface Stamp {
  /** ISO time of this mutation (from the injected clock). */
  now: string;
  /** The hosting runtime's owner epoch, stamped on until_server_restart records. */
  ownerEpoch: string;
}

type DisplayInput = ParsedProducerInput["display"];
type RetentionInput = ParsedProducerInput["retention"];

/** Application notifications are connection-level banners or modals; session ones default to inline. */
export function resolveDisplay(scope: NotificationScope, input: DisplayInput, current?: Display): Display {
  const presentation =
    input?.presentation ?? current?.presentation ?? (scope.kind === "application" ? "banner" : "inline");
  if (scope.kind === "application" && presentation === "inline") {
    throw NotificationValidationError.at(
      "display.presentation",
      "application notifications must use banner or modal; inline is session-only",
    );
  }
  return { ...(input ?? current ?? {}), presentation };
}

export function stampRetention(input: RetentionInput, stamp: Stamp): Retention {
  const retention: Retention = input
    ? { ...input, version: RETENTION_VERSION }
    : { version: RETENTION_VERSION, policy: "until_resolved" };
  return retention.policy === "until_server_restart" ? { ...retention, owner_epoch: stamp.ownerEpoch } : retention;
}

export function newRecord(
  scope: NotificationScope,
  input: ParsedProducerInput,
  plugin: string,
  stamp: Stamp,
): NotificationRecord {
  const kind = input.kind ?? "notification";
  return {
    id: randomUUID(),
    revision: 1,
    key: input.key,
    kind,
    status: initialStatus(kind),
    severity: input.severity,
    title: input.title,
    ...(input.body !== undefined ? { body: input.body } : {}),
    created_at: stamp.now,
    updated_at: stamp.now,
    ...(input.request_id !== undefined ? { request_id: input.request_id } : {}),
    ...(scope.kind === "session" ? { session_id: scope.sessionId } : {}),
    ...(input.operation_id !== undefined ? { operation_id: input.operation_id } : {}),
    ...(scope.kind === "application" && Array.isArray(input.audience) ? { audience: input.audience } : {}),
    source: { plugin },
    display: resolveDisplay(scope, input.display),
    ...(input.ui_effects !== undefined ? { ui_effects: input.ui_effects } : {}),
    retention: stampRetention(input.retention, stamp),
    model_visibility: "hidden",
  };
}

/**
 * The record's next revision: revision + 1 (a legacy record without one gains revision 1), the new time,
 * and no ui_effects unless this mutation supplies them: an effect is a command of its own revision only.
 */
export function nextRevision(
  record: NotificationRecord,
  stamp: Stamp,
  status: NotificationStatus = record.status,
): NotificationRecord {
  const { ui_effects: _inherited, ...rest } = record;
  return { ...rest, revision: (record.revision ?? 0) + 1, status, updated_at: stamp.now };
}

/** Content fields of a publication or patch applied over `record` (absent fields keep their value). */
export function applyContent(
  scope: NotificationScope,
  record: NotificationRecord,
  input: ParsedPatchInput & { retention?: RetentionInput; request_id?: string | undefined },
  stamp: Stamp,
): NotificationRecord {
  const next: NotificationRecord = { ...record };
  if (input.severity !== undefined) next.severity = input.severity;
  if (input.title !== undefined) next.title = input.title;
  if (input.body !== undefined) next.body = input.body;
  if (input.display !== undefined) next.display = resolveDisplay(scope, input.display, record.display);
  if (input.ui_effects !== undefined) next.ui_effects = input.ui_effects;
  if (input.retention !== undefined) next.retention = stampRetention(input.retention, stamp);
  if (input.request_id !== undefined) next.request_id = input.request_id;
  return next;
}

/** Where a move's detail is kept on the record. */
export const DETAIL_FIELD = {
  resolve: "resolution",
  expire: "expiration",
  dismiss: "dismissal",
  respond: "response",
  cancel: "resolution",
  suspend: "timeout",
} as const;
