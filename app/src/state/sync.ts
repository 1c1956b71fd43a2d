// Keeps the shared state in step with the server while paired: the session list (loaded, then updated from
// events), the agents, and the ui_effects invalidations (reload the list, a session, or the actions). A revoked
// device is the client library's business: it stops with `revoked` (connection.ts returns to pairing).
import { signal } from "@preact/signals";
import { NetworkError, type AgentView, type Invalidation } from "../../../client/index.ts";
import type { Paired } from "./connection.ts";
import { applySessionEvent, replaceSessions, sessionsOffline } from "./sessions.ts";

export const agents = signal<AgentView[]>([]);
/** Bumped when a session must be reloaded (ui_effects reload_session_ids); the chat screen reloads on change. */
export const sessionReloads = signal<Record<string, number>>({});

export async function loadSessions({ client }: Paired): Promise<void> {
  try {
    replaceSessions(await client.listSessions());
  } catch (error) {
    if (error instanceof NetworkError) sessionsOffline.value = true;
    else throw error;
  }
}

export async function loadAgents({ client }: Paired): Promise<void> {
  agents.value = await client.listAgents();
}

/** Starts syncing; returns the function that stops it. */
export function startSync(current: Paired): () => void {
  const { client } = current;
  const offEvents = client.on("*", applySessionEvent);
  const offReset = client.onReset(() => void loadSessions(current).catch(() => undefined));
  const offStatus = client.status.subscribe((status) => {
    if (status.state !== "live" && status.state !== "polling") return;
    if (sessionsOffline.value) void loadSessions(current).catch(() => undefined);
    if (agents.value.length === 0) void loadAgents(current).catch(() => undefined);
  });
  const offInvalidations = client.notifications.invalidations.pending.subscribe((pending) => pending.forEach((item) => void runInvalidation(current, item)));
  void loadSessions(current).catch(() => undefined);
  void loadAgents(current).catch(() => undefined);
  return () => {
    offEvents();
    offReset();
    offStatus();
    offInvalidations();
  };
}

async function runInvalidation(current: Paired, invalidation: Invalidation): Promise<void> {
  if (invalidation.claimed) return;
  const target = invalidation.target;
  await current.client.notifications.invalidations
    .reload(target, async () => {
      if (target.kind === "sessions_list") await loadSessions(current);
      else if (target.kind === "session") sessionReloads.value = { ...sessionReloads.value, [target.session_id]: (sessionReloads.value[target.session_id] ?? 0) + 1 };
      else await loadAgents(current);
    })
    .catch(() => undefined);
}
