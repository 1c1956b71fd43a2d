// The connection state, always visible and honest: exactly one of Live, Server offline, Polling, Offline,
// Connecting (connection-status.ts). When not live, the tooltip says how long ago the last event arrived.
import { useEffect, useState } from "preact/hooks";
import { BADGE_LABELS } from "../state/connection-status.ts";
import { useStore } from "../state/store.ts";

export function ConnectionBadge() {
  const { connection, env } = useStore();
  const badge = connection.badge.value;
  const [now, setNow] = useState(env.now());
  useEffect(() => {
    if (badge === "live") return;
    const timer = setInterval(() => setNow(env.now()), 1000);
    return () => clearInterval(timer);
  }, [badge]);
  const last = connection.lastEventAt.value;
  const since = badge !== "live" && last !== undefined ? `; last event ${ago(now - last)}` : "";
  return (
    <span
      class={`connection state-${badge}`}
      role="status"
      data-state={badge}
      title={`Connection to your server${since}`}
    >
      <span class="dot" aria-hidden="true" />
      {BADGE_LABELS[badge]}
    </span>
  );
}

function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min ago` : `${Math.round(minutes / 60)} h ago`;
}
