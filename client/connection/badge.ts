// The one word an app shows for its connection (docs/client.md "The badge"), decided from the library's status so
// the app and the tests cannot disagree. Exactly one of five, and "Live" only while events can reach the app.
import type { ConnectionStatus } from "./machine.ts";

export type ConnectionBadgeKind = "live" | "server_offline" | "polling" | "offline" | "connecting";

export const CONNECTION_BADGE_LABELS = {
  live: "Live",
  server_offline: "Server offline",
  polling: "Polling",
  offline: "Offline",
  connecting: "Connecting",
} as const satisfies Record<ConnectionBadgeKind, string>;

export type ConnectionBadgeLabel = (typeof CONNECTION_BADGE_LABELS)[ConnectionBadgeKind];

export interface ConnectionBadge {
  kind: ConnectionBadgeKind;
  label: ConnectionBadgeLabel;
}

export interface BadgeContext {
  /** The device's own network (a browser's `navigator.onLine`): false means Offline whatever else is known. */
  networkOnline?: boolean;
}

/**
 * - Offline: the device has no network, the client has stopped, or nothing answers (neither HTTP nor a bridge whose
 *   server is known offline), also while the library retries (until a retry answers).
 * - Server offline: the bridge says the server's link is down and events are not reaching the app by HTTP either.
 * - Live: the bridge is trusted (the library never says `live` with the server known offline).
 * - Polling: events come by HTTP long-poll.
 * - Connecting: catching up or joining.
 */
export function connectionBadge(status: ConnectionStatus, context: BadgeContext = {}): ConnectionBadge {
  return badge(kindOf(status, context));
}

function kindOf(status: ConnectionStatus, context: BadgeContext): ConnectionBadgeKind {
  if (context.networkOnline === false || status.state === "stopped") return "offline";
  const serverOffline = status.server?.online === false;
  switch (status.state) {
    case "live":
      return serverOffline ? "server_offline" : "live";
    case "polling":
      return "polling";
    case "offline":
      return serverOffline ? "server_offline" : "offline";
    case "catching_up":
      // A retry that has not answered yet: nothing answers since the client went offline.
      return serverOffline ? "server_offline" : status.retrying ? "offline" : "connecting";
  }
}

function badge(kind: ConnectionBadgeKind): ConnectionBadge {
  return { kind, label: CONNECTION_BADGE_LABELS[kind] };
}
