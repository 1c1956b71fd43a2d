// Typed failures of the notification service. Plugins calling the API directly receive them (docs/notifications.md "Producer API":
// "Application plugins calling the application interface directly with invalid input: validation errors");
// the routes map them to HTTP answers; the tool-facing sink swallows them.
import type { z } from "zod";
import type { NotificationRecord } from "../../client/wire/notification.ts";

export interface ValidationIssue {
  path: string;
  message: string;
}

export class NotificationValidationError extends Error {
  override name = "NotificationValidationError";

  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "));
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

/** No record with this id (or no active occurrence for this key, when nothing could be created). */
export class NotificationNotFoundError extends Error {
  override name = "NotificationNotFoundError";
}

/**
 * A move the lifecycle table does not allow, or a stale expected revision. Carries the current record: a
 * dismiss answers 409 with exactly that record as its body.
 */
export class NotificationConflictError extends Error {
  override name = "NotificationConflictError";

  constructor(
    message: string,
    readonly current: NotificationRecord,
    readonly reason: "stale_revision" | "invalid_transition" | "operation_mismatch",
  ) {
    super(message);
  }
}
