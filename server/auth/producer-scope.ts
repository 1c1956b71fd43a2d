// What a producer token may call (docs/notifications.md "Producers"): publish a notification by key and resolve
// one, at application or session scope. Matched on the route a request was routed to, like the auth hook's open
// routes, so no spelling of another path gets through.
const PRODUCER_ROUTES: ReadonlySet<string> = new Set([
  "POST /application/notifications",
  "POST /application/notifications/resolve",
  "POST /sessions/:session_id/notifications",
  "POST /sessions/:session_id/notifications/resolve",
]);

export function producerMayCall(method: string, routeUrl: string | undefined): boolean {
  return routeUrl !== undefined && PRODUCER_ROUTES.has(`${method} ${routeUrl}`);
}
