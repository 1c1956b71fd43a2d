// The connection state, always visible and honest: live, polling, reconnecting, offline, revoked; when not
// live, how long since the last event arrived (ticks every second).
import { useEffect, useState } from "preact/hooks";
import { lastEventAt, shownState, type ShownState } from "../state/connection.ts";

const LABELS: Record<ShownState, string> = {
  connecting: "Connecting",
  live: "Live",
  polling: "Polling",
  reconnecting: "Reconnecting",
  offline: "Offline",
  revoked: "Revoked",
};

export function ConnectionBadge() {
  const state = shownState.value;
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (state === "live") return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [state]);
  const since = state !== "live" && lastEventAt.value !== undefined ? ` · ${ago(now - lastEventAt.value)}` : "";
  return (
    <span class={`connection state-${state}`} role="status" data-state={state} title="Connection to your server">
      <span class="dot" aria-hidden="true" />
      {LABELS[state]}
      {since}
    </span>
  );
}

function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}
