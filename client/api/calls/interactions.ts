// The typed call of the interactions route (client/wire/routes/interactions.ts): answering an approval.
import type { NotificationRecord } from "../../wire/notification.ts";
import { respondRoute } from "../../wire/routes/interactions.ts";
import { RouteCaller } from "../route-caller.ts";

/** An answer to an interaction (an approval): approve, or deny with what the model is told. */
export type InteractionAnswer = { response: "approve"; message?: string } | { response: "deny"; message?: string };

export abstract class InteractionCalls extends RouteCaller {
  /** Answers an interaction (an approval) at the revision shown; a 409 ResponseError's body is the current record. */
  async respondToInteraction(
    sessionId: string,
    notificationId: string,
    answer: InteractionAnswer & { expected_revision?: number | string },
  ): Promise<NotificationRecord> {
    const params = { session_id: sessionId, notification_id: notificationId };
    return this.call(respondRoute, { params, body: answer });
  }
}
