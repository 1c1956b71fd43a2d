// What createRuntime calls: builds the hub, ends what an earlier owner epoch left pending, and starts the
// request-completion watcher for the runtime's lifetime (it stops with ctx.shutdown).
import type { ServerContext } from "../context.ts";
import { NotificationHub, type NotificationHubOptions } from "./hub.ts";
import { expireForCompletedRequest, expireFromEarlierOwners, RequestCompletionWatcher } from "./retention.ts";

export function createNotifications(ctx: Omit<ServerContext, "notifications">, options: NotificationHubOptions): NotificationHub {
  const hub = new NotificationHub(ctx, options);
  const scoped = { notifications: hub, events: ctx.events };
  expireFromEarlierOwners(ctx, hub);
  const watcher = new RequestCompletionWatcher(ctx.db, ctx.events, (requestId, sessionId) => expireForCompletedRequest(scoped, requestId, sessionId), ctx.log);
  const stop = watcher.start();
  ctx.shutdown.addEventListener("abort", stop, { once: true });
  return hub;
}
