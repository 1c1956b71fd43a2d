// The producer boundary's schemas live in the wire (client/wire/notification-input.ts: the producer routes' bodies
// too); here is how the service reads them: a refusal is a NotificationValidationError carrying zod's issue paths.
import type { z } from "zod";
import { NotificationValidationError } from "./errors.ts";

export * from "../../client/wire/notification-input.ts";

/** Parses `value` or throws NotificationValidationError carrying zod's issue paths. */
export function parseProducer<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw NotificationValidationError.fromZod(result.error);
}
