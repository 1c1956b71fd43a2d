// The connection badge's one word: the client library's `connectionBadge` (docs/client.md "The badge"), plus the one
// fact only the app knows: its last call was refused because the server is off the bridge.
import {
  CONNECTION_BADGE_LABELS,
  ServerOfflineError,
  connectionBadge,
  type ConnectionBadgeKind,
  type ConnectionStatus,
} from "../../../client/index.ts";

/** Exactly one of these is shown: Live, Server offline, Polling, Offline, Connecting (docs/app.md "Connection state"). */
export type Badge = ConnectionBadgeKind;

export const BADGE_LABELS: Record<Badge, string> = CONNECTION_BADGE_LABELS;

/** What the badge reads besides the status: whether the browser has a network, and what the last call learned. */
export interface BadgeFacts {
  /** navigator.onLine: false means no network at all, whatever the library still tries. */
  online: boolean;
  /** The last server call failed because the server is off the bridge (`ServerOfflineError`). */
  serverUnreachable: boolean;
}

export function badgeOf(status: ConnectionStatus, facts: BadgeFacts): Badge {
  const badge = connectionBadge(status, { networkOnline: facts.online }).kind;
  // A call refused as "server offline" wins over what the sockets say (no network still wins over everything).
  return facts.serverUnreachable && badge !== "offline" ? "server_offline" : badge;
}

/** Live or Polling: the server answers this device (a call may still fail on its own). */
export function serverAnswers(badge: Badge): boolean {
  return badge === "live" || badge === "polling";
}

/** Offline or Server offline: nothing reaches the server now, so what is written waits on this device. */
export function serverUnreachable(badge: Badge): boolean {
  return badge === "offline" || badge === "server_offline";
}

/** Whether a failed call means the bridge answered but the server is not on it. */
export function isServerUnavailable(error: unknown): boolean {
  if (error instanceof ServerOfflineError) return true;
  // An older library rejected with the relay's reason on the error itself.
  return typeof error === "object" && error !== null && (error as { reason?: unknown }).reason === "server_unavailable";
}
