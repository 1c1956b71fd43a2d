// What createRuntime calls: builds the hub and ends what an earlier owner epoch left pending. (Request-scoped
// records are ended by the request runner: server/runner/runner.ts endRequestScope.)
import type { ServerContext } from "../context.ts";
import { NotificationHub, type NotificationHubOptions } from "./hub.ts";
import { expireFromEarlierOwners } from "./retention.ts";

export function createNotifications(ctx: Omit<ServerContext, "notifications">, options: NotificationHubOptions): NotificationHub {
  const hub = new NotificationHub(ctx, options);
  expireFromEarlierOwners(ctx, hub);
  return hub;
}
