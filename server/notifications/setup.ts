// What createRuntime calls: builds the hub and ends what an earlier owner epoch left pending. (Request-scoped
// records are ended by the request runner: server/runner/runner.ts endRequestScope.)
import { NotificationHub, type NotificationHubParts } from "./hub.ts";
import { expireFromEarlierOwners } from "./retention.ts";

export function createNotifications(parts: NotificationHubParts): NotificationHub {
  const hub = new NotificationHub(parts);
  expireFromEarlierOwners(parts.sessions, hub);
  return hub;
}
