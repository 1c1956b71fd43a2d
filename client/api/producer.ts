// A producer's calls (docs/notifications.md "Producers"): publish a notification by key and resolve one, at
// application or session scope, with a producer token (or the admin token). A script that is not an app (a backup
// job, a home server) uses it; each call goes through its route's contract (call-route.ts).
import type { NotificationRecord } from "../wire/notification.ts";
import type { RouteInput } from "../wire/routes/route.ts";
import {
  publishApplicationNotificationRoute,
  publishSessionNotificationRoute,
  resolveApplicationNotificationRoute,
  resolveSessionNotificationRoute,
} from "../wire/routes/producer-notifications.ts";
import { HttpApi, type FetchLike } from "../transport/http.ts";
import { callRoute } from "./call-route.ts";

export interface ProducerClientOptions {
  /** The server's HTTP base URL, e.g. http://127.0.0.1:8787. */
  serverUrl: string;
  /** A producer token (POST /producers), or the admin token. */
  token: string;
  fetch?: FetchLike;
}

export type PublishInput = RouteInput<typeof publishApplicationNotificationRoute>["body"];
export type ResolveInput = RouteInput<typeof resolveApplicationNotificationRoute>["body"];

export class ProducerClient {
  private readonly http: HttpApi;

  constructor(options: ProducerClientOptions) {
    this.http = new HttpApi({ baseUrl: options.serverUrl, token: options.token, fetch: options.fetch });
  }

  /** Creates the key's notification, or updates its active occurrence; in a session's scope when one is named. */
  publish(input: PublishInput, sessionId?: string): Promise<NotificationRecord> {
    return sessionId === undefined
      ? callRoute(this.http, publishApplicationNotificationRoute, { body: input })
      : callRoute(this.http, publishSessionNotificationRoute, { params: { session_id: sessionId }, body: input });
  }

  /** Resolves the key's active notification. */
  resolve(input: ResolveInput, sessionId?: string): Promise<NotificationRecord> {
    return sessionId === undefined
      ? callRoute(this.http, resolveApplicationNotificationRoute, { body: input })
      : callRoute(this.http, resolveSessionNotificationRoute, { params: { session_id: sessionId }, body: input });
  }
}
