// The offline cache's bound from the server's config (app/src/offline/offline-bound.ts, docs/app.md "Offline" OF2):
// read once a paired device reaches the server, never before a pairing (a browser never paired keeps no database),
// and the app's own bound when the config has no `offline` section.
import { signal } from "@preact/signals";
import { describe, expect, it } from "vitest";
import type { AppConfig } from "../../client/index.ts";
import { boundOf, followOfflineBound } from "../../app/src/offline/offline-bound.ts";
import { MAX_BYTES, memoryCache } from "../../app/src/state/offline-cache.ts";
import type { Connection } from "../../app/src/state/connection.ts";

const config = (offline?: { max_mb: number }): AppConfig => ({
  server_id: "srv1",
  server_url: "http://127.0.0.1:1",
  bridge_url: null,
  app_url: "http://127.0.0.1:1/",
  ...(offline ? { offline } : {}),
});

describe("the offline bound", () => {
  it("is offline.max_mb in bytes, else the app's own", () => {
    expect(boundOf(config({ max_mb: 3 }))).toBe(3 * 1024 * 1024);
    expect(boundOf(config())).toBe(MAX_BYTES);
  });

  it("is read once the paired device reaches the server, and kept with the cache", async () => {
    const badge = signal<string>("connecting");
    const paired = signal<unknown>(undefined);
    const connection = { badge, paired } as unknown as Connection;
    const cache = memoryCache();
    const bounds: number[] = [];
    const kept = { ...cache, setMaxBytes: async (bytes: number) => void bounds.push(bytes) };
    let asked = 0;
    const stop = followOfflineBound({
      connection,
      appConfig: async () => (asked++, config({ max_mb: 1 })),
      cache: kept,
      report: (message) => {
        throw new Error(message);
      },
    });
    badge.value = "live";
    await Promise.resolve();
    expect(asked).toBe(0); // not paired: nothing is asked, nothing written
    paired.value = { client: {} };
    await expect.poll(() => bounds).toEqual([1024 * 1024]);
    badge.value = "offline";
    badge.value = "live";
    await Promise.resolve();
    expect(asked).toBe(1);
    stop();
  });
});
