// Typed failures of the notification service. Plugins calling the API directly receive them (docs/notifications.md "Producer API":
// "Application plugins calling the application interface directly with invalid input: validation errors");
// the tool-facing sink swallows them. Each is a DomainError with its registered code (client/wire/errors.ts), so a
// route answers it like any other refusal, with no mapping of its own; the one exception, a 409 whose body is the
// current record (dismiss, respond), is answered in server/http/record-conflict.ts.
import type { z } from "zod";
import type { NotificationRecord } from "../../client/wire/notification.ts";
import { DomainError } from "../errors.ts";

export interface ValidationIssue {
  path: string;
  message: string;
}

/** invalid_input; over HTTP the input is a route's body, so `details` name each issue's path under `body.`. */
export class NotificationValidationError extends DomainError {
  override name = "NotificationValidationError";

  constructor(readonly issues: ValidationIssue[]) {
    super(
      "invalid",
      "invalid_input",
      issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "),
      issues.map((i) => ({ path: `body.${i.path}`, message: i.message })),
    );
  }

  static fromZod(error: z.ZodError): NotificationValidationError {
    return new NotificationValidationError(
      error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })),
    );
  }

  static at(path: string, message: string): NotificationValidationError {
    return new NotificationValidationError([{ path, message }]);
  }
}

/** No record with this id (or no active occurrence for this key, when nothing could be created): notification_not_found. */
export class NotificationNotFoundError extends DomainError {
  override name = "NotificationNotFoundError";

  constructor(message: string) {
    super("not_found", "notification_not_found", message);
  }
}

/**
 * A move the lifecycle table does not allow, or a stale expected revision: notification_conflict, `details.current`
 * the current record. A dismiss or an interaction's answer answers 409 with exactly that record as its body.
 */
export class NotificationConflictError extends DomainError {
  override name = "NotificationConflictError";

  constructor(
    message: string,
    readonly current: NotificationRecord,
    readonly reason: "stale_revision" | "invalid_transition" | "operation_mismatch",
  ) {
    super("conflict", "notification_conflict", message, { current });
  }
}
