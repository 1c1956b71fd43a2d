// Pinned chats are readable offline even when never opened on this device (docs/app.md "Offline", OF6): after the
// chat list loads, each pinned chat the cache lacks is read once and kept, one at a time so a long list of pins
// never floods the server, at most MAX_PINNED_FETCHES per list load (the cache's byte bound still applies), with its
// images (OF7).
import type { SessionSummary } from "../../../client/index.ts";
import type { Paired } from "./connection.ts";
import type { AppEnv } from "./env.ts";

export const MAX_PINNED_FETCHES = 100;

export async function keepPinnedOffline(
  env: AppEnv,
  { client }: Paired,
  list: readonly SessionSummary[],
): Promise<void> {
  const kept = new Set(await env.offline.keptSessions());
  const missing = list.filter((session) => session.pinned === true && !kept.has(session.id));
  if (missing.length === 0) return;
  const { keepImagesOffline } = await import("../offline/offline-images.ts");
  for (const session of missing.slice(0, MAX_PINNED_FETCHES)) {
    const full = await client.getSession(session.id);
    await env.offline.writeMessages(session.id, full.messages);
    await keepImagesOffline(env.offline, client, session.id, full.messages);
  }
}
