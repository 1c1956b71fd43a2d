// Answering a session interaction (docs/tools.md "Approvals"): POST /sessions/{id}/notifications/{notification_id}/
// respond with {response: "approve" | "deny", message?, expected_revision?}. 200 with the responded record; 409 with
// the current record itself as the body when it is not an interaction waiting for an answer, its revision is not the
// expected one, or the request it belongs to is no longer running; 404 for an unknown session or record.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { NotificationRecord } from "../../../client/wire/notification.ts";
import { deviceIdOf } from "../../auth/caller.ts";
import type { ServerContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import type { ParsedMoveInput } from "../../notifications/input.ts";
import { NotificationConflictError } from "../../notifications/errors.ts";
import { parseInput } from "../validate.ts";

const params = z.object({ session_id: z.string().min(1), notification_id: z.string().min(1) }).strict();
const body = z
  .object({
    response: z.enum(["approve", "deny"]),
    /** What the model is told with a denial (and kept on the record with either answer). */
    message: z.string().max(4000).optional(),
    /** A revision number, or the updated_at of a legacy record without revision. */
    expected_revision: z.union([z.number().int().positive(), z.string().min(1)]).optional(),
  })
  .strict();

export function registerInteractionRoutes(
  app: FastifyInstance,
  ctx: Pick<ServerContext, "notifications" | "runner" | "mcp" | "clock">,
): void {
  app.post("/sessions/:session_id/notifications/:notification_id/respond", async (request, reply) => {
    const { session_id, notification_id } = parseInput(params, request.params, "params");
    const answer = parseInput(body, request.body, "body");
    const scope = ctx.notifications.session(session_id);
    const record = scope.get(notification_id);
    if (!record)
      throw notFound("notification_not_found", `session ${session_id} has no notification "${notification_id}"`);
    if (!answerable(ctx, session_id, record, answer.expected_revision)) return reply.status(409).send(record);
    const detail = {
      response: answer.response,
      ...(answer.message !== undefined ? { message: answer.message } : {}),
      by: answeredBy(request),
      responded_at: new Date(ctx.clock.now()).toISOString(),
    };
    let responded: NotificationRecord;
    try {
      responded = scope.move({ key: record.key, detail } as ParsedMoveInput, "respond", record.source.plugin);
    } catch (error) {
      if (error instanceof NotificationConflictError) return reply.status(409).send(error.current);
      throw error;
    }
    ctx.mcp.approvals.answer(record.id, { response: answer.response, message: answer.message });
    return responded;
  });
}

/** Waiting for an answer, at the expected revision, and (for a request's record) while that request runs. */
function answerable(
  ctx: Pick<ServerContext, "runner" | "mcp">,
  sessionId: string,
  record: NotificationRecord,
  expected: number | string | undefined,
): boolean {
  if (record.kind !== "interaction" || record.status !== "pending_response") return false;
  if (expected !== undefined && expected !== (record.revision ?? record.updated_at)) return false;
  if (record.request_id !== undefined && ctx.runner.activeRequest(sessionId) !== record.request_id) return false;
  // An approval is answered only while its run waits on it (a record a crashed process left is not).
  return !record.key.startsWith("approval:") || ctx.mcp.approvals.isWaiting(record.id);
}

function answeredBy(request: FastifyRequest): string {
  const deviceId = deviceIdOf(request.caller);
  return deviceId !== undefined ? `device:${deviceId}` : "admin";
}
