// The connection badge's one word, from the client library's status. This is the only file that reads the status's
// shape: the library is gaining the server's own reachability (the bridge's `server_online` and `server_status`
// push) on a parallel branch, and adopting it is a change here alone (docs/app.md "Connection state").
import type { ConnectionStatus } from "../../../client/index.ts";

/** Exactly one of these is shown (docs/app.md "Connection state"). */
export type Badge = "live" | "server_offline" | "polling" | "offline" | "connecting";

export const BADGE_LABELS: Record<Badge, string> = {
  live: "Live",
  server_offline: "Server offline",
  polling: "Polling",
  offline: "Offline",
  connecting: "Connecting",
};

/** What the badge reads besides the status: whether the browser has a network, and what the last call learned. */
export interface BadgeFacts {
  /** navigator.onLine: false means no network at all, whatever the library still tries. */
  online: boolean;
  /** The last server call failed because the bridge could not reach the server (relay `server_unavailable`). */
  serverUnreachable: boolean;
}

/** A status from a library that reports the server's reachability (`server_online`), or from today's, which does not. */
type StatusWithServer = ConnectionStatus & { server_online?: boolean };

export function badgeOf(status: ConnectionStatus, facts: BadgeFacts): Badge {
  if (!facts.online) return "offline";
  const { state } = status as { state: string };
  const serverOnline = (status as StatusWithServer).server_online;
  // The server off the bridge (said by the bridge, or learned by the last call) wins over what the sockets say.
  if (state === "server_offline" || serverOnline === false || facts.serverUnreachable) return "server_offline";
  switch (state) {
    case "live":
      // Live only while events can reach this app: the bridge is up, and nothing above says the server is not on it.
      return "live";
    case "polling":
      return "polling";
    case "offline":
      return "offline";
    case "stopped":
      return "offline";
    default:
      return "connecting";
  }
}

/** Whether a failed call means the bridge answered but the server is not on it (the relay's `server_unavailable`). */
export function isServerUnavailable(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { reason?: unknown }).reason === "server_unavailable";
}
