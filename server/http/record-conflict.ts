// The one home of the 409 whose body is not the error body (docs/notifications.md "Routes"): a dismiss or an
// interaction's answer that meets another revision, or a record it may not move, answers the current record itself,
// so a client can show or drop it at once. Its contract says so (`conflictRecord`); every other route answers a
// NotificationConflictError like any DomainError, `notification_conflict` with `details.current`.
import type { FastifyReply } from "fastify";
import { statusOf } from "../../client/wire/errors.ts";
import type { RouteContract } from "../../client/wire/routes/route.ts";
import { NotificationConflictError } from "../notifications/errors.ts";

export async function answerRecordConflict<T>(
  contract: RouteContract,
  reply: FastifyReply,
  work: () => T | Promise<T>,
): Promise<T | FastifyReply> {
  if (!contract.conflictRecord) return work();
  try {
    return await work();
  } catch (error) {
    if (error instanceof NotificationConflictError)
      return reply.status(statusOf("notification_conflict")).send(error.current);
    throw error;
  }
}
