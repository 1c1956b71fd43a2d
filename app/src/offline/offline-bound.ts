// The offline cache's byte bound as the server's config sets it (`offline.max_mb`, told in GET /app-config.json;
// docs/app.md "Offline", OF2): read once the server answers (the badge Live or Polling) on a paired device, and kept
// with the cache, so a device offline later still keeps to it. A server whose config has no `offline` section gives
// the app's own bound (MAX_BYTES). Nothing is written before a pairing: a browser never paired keeps no database.
import { effect } from "@preact/signals";
import type { AppConfig } from "../../../client/index.ts";
import type { Connection } from "../state/connection.ts";
import { MAX_BYTES, type OfflineCache } from "../state/offline-cache.ts";
import { serverAnswers } from "../state/connection-status.ts";

const MB = 1024 * 1024;

export function boundOf(config: AppConfig): number {
  return config.offline ? config.offline.max_mb * MB : MAX_BYTES;
}

interface Parts {
  connection: Connection;
  appConfig(): Promise<AppConfig | undefined>;
  cache: OfflineCache;
  report(message: string, detail: unknown): void;
}

export function followOfflineBound({ connection, appConfig, cache, report }: Parts): () => void {
  let applied = false;
  let asking = false;
  return effect(() => {
    if (applied || asking || !connection.paired.value || !serverAnswers(connection.badge.value)) return;
    asking = true;
    appConfig()
      .then(async (config) => {
        if (!config) return;
        await cache.setMaxBytes(boundOf(config));
        applied = true;
      })
      .catch((error: unknown) => report("keeping the offline bound failed", error))
      .finally(() => (asking = false));
  });
}
