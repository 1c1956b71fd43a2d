// Keeps the shared state in step with the server while paired: the session list (loaded, then updated from
// events), the agents, the ui_effects invalidations (reload the list, a session, or the actions), and a
// revoked device (any 401) sends the app back to pairing.
import { signal } from "@preact/signals";
import { NetworkError, UnauthorizedError, type Invalidation } from "../../../client/index.ts";
import type { Agent } from "../api/schemas.ts";
import { forget, type Paired } from "./connection.ts";
import { applySessionEvent, replaceSessions, sessionsOffline } from "./sessions.ts";

export const agents = signal<Agent[]>([]);
/** Bumped when a session must be reloaded (ui_effects reload_session_ids); the chat screen reloads on change. */
export const sessionReloads = signal<Record<string, number>>({});

/** Runs `work`; a 401 forgets the device, anything else is rethrown to the caller. */
export async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UnauthorizedError) await forget(true);
    throw error;
  }
}

export async function loadSessions(current: Paired): Promise<void> {
  try {
    replaceSessions(await guarded(() => current.api.listSessions()));
  } catch (error) {
    if (error instanceof NetworkError) sessionsOffline.value = true;
    else throw error;
  }
}

export async function loadAgents(current: Paired): Promise<void> {
  agents.value = await guarded(() => current.api.listAgents());
}

/** Starts syncing; returns the function that stops it. */
export function startSync(current: Paired): () => void {
  const { client } = current;
  const offEvents = client.on("*", applySessionEvent);
  const offReset = client.onReset(() => void loadSessions(current));
  const offStatus = client.status.subscribe((status) => {
    if (status.state === "live" || status.state === "polling") {
      if (sessionsOffline.value) void loadSessions(current);
      if (agents.value.length === 0) void loadAgents(current).catch(() => undefined);
    }
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
  const invalidations = current.client.notifications.invalidations;
  await invalidations
    .reload(target, async () => {
      if (target.kind === "sessions_list") await loadSessions(current);
      else if (target.kind === "session") sessionReloads.value = { ...sessionReloads.value, [target.session_id]: (sessionReloads.value[target.session_id] ?? 0) + 1 };
      else await loadAgents(current);
    })
    .catch(() => undefined);
}
