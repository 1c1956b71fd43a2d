// The typed calls of the actions routes (client/wire/routes/actions.ts): a plugin's buttons.
import {
  applicationActionsRoute,
  invokeApplicationActionRoute,
  invokeSessionActionRoute,
  sessionActionsRoute,
} from "../../wire/routes/actions.ts";
import type { RouteAnswer } from "../../wire/routes/route.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class ActionCalls extends RouteCaller {
  /** The actions of the application, or of a session's scope (a plugin's buttons). */
  async listActions(sessionId?: string): Promise<RouteAnswer<typeof applicationActionsRoute>["actions"]> {
    const answer =
      sessionId === undefined
        ? await this.call(applicationActionsRoute, {})
        : await this.call(sessionActionsRoute, { params: { session_id: sessionId } });
    return answer.actions;
  }

  /** Runs an action: an application action, or a session's when `sessionId` is given. */
  async invokeAction(
    name: string,
    input: unknown,
    sessionId?: string,
  ): Promise<RouteAnswer<typeof invokeApplicationActionRoute>> {
    const body = input === undefined ? {} : { input };
    return sessionId === undefined
      ? this.call(invokeApplicationActionRoute, { params: { name }, body })
      : this.call(invokeSessionActionRoute, { params: { session_id: sessionId, name }, body });
  }
}
