// The notification center's calls, by scope, through the routes' contracts (client/wire/routes/notifications.ts):
// list a scope's records, dismiss one.
import type { Requester } from "../transport/http.ts";
import {
  applicationNotificationsRoute,
  dismissApplicationNotificationRoute,
  dismissSessionNotificationRoute,
  sessionNotificationsRoute,
} from "../wire/routes/notifications.ts";
import { callRoute } from "../api/call-route.ts";
import type { RevisionToken, ScopeRef } from "./record.ts";

/** The records of a scope, each still `unknown` (checked one by one); `terminal` adds the terminal ones. */
export function listScope(http: Requester, scope: ScopeRef, terminal = false): Promise<unknown[]> {
  const query = terminal ? { include_terminal: "true" as const } : {};
  return scope.scope === "application"
    ? callRoute(http, applicationNotificationsRoute, { query })
    : callRoute(http, sessionNotificationsRoute, { params: { session_id: scope.session_id }, query });
}

/** Dismisses record `id` at `revision`; a 409 ResponseError's body is the current record. */
export function dismissInScope(
  http: Requester,
  scope: ScopeRef,
  id: string,
  body: { expected_revision: RevisionToken; reason?: string },
): Promise<unknown> {
  return scope.scope === "application"
    ? callRoute(http, dismissApplicationNotificationRoute, { params: { notification_id: id }, body })
    : callRoute(http, dismissSessionNotificationRoute, {
        params: { session_id: scope.session_id, notification_id: id },
        body,
      });
}
