// A store for the app's controllers without any page: storage, address bar and history are plain objects, the
// server a scripted stand-in (the screen tests' fakeClient). What a controller does is checked here; what a screen
// shows for it is test/app-dom's, and the wire is test/app's in Chromium.
import type { AppEnv } from "../../app/src/state/env.ts";
import { memoryCache } from "../../app/src/state/offline-cache.ts";
import { createStore, type AppStore } from "../../app/src/state/store.ts";
import { CREDENTIALS, deviceStandIns, type FakeClient } from "../app-dom/support/fake-env.ts";

/** localStorage's interface over a Map. */
export class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear = () => this.items.clear();
  getItem = (key: string) => this.items.get(key) ?? null;
  key = (index: number) => [...this.items.keys()][index] ?? null;
  removeItem = (key: string) => void this.items.delete(key);
  setItem = (key: string, value: string) => void this.items.set(key, String(value));
}

export interface NodeStore {
  store: AppStore;
  env: AppEnv;
  reported: Array<{ message: string; detail: unknown }>;
  copied: string[];
}

/** A started store, paired with `client`, at `hash`. Call `store.dispose()` after the test. */
export async function nodeStore(client: FakeClient, hash = "#/"): Promise<NodeStore> {
  const storage = new MemoryStorage();
  storage.setItem("chat-relay:credentials", JSON.stringify(CREDENTIALS));
  const location = { hash, origin: "http://app.test", protocol: "http:", hostname: "app.test", href: "" };
  const setHash = (url?: string | URL | null) => void (location.hash = String(url ?? "").replace(/^[^#]*/, ""));
  const reported: NodeStore["reported"] = [];
  const copied: string[] = [];
  const env: AppEnv = {
    storage,
    offline: memoryCache(),
    location,
    history: { replaceState: (_data, _unused, url) => setHash(url), pushState: (_data, _unused, url) => setHash(url) },
    onHashChange: () => () => undefined,
    fetch: async () => new Response("{}", { status: 404 }),
    connect: (() => client.client) as unknown as AppEnv["connect"],
    ...deviceStandIns(reported, copied),
  };
  const store = createStore(env);
  await store.start();
  return { store, env, reported, copied };
}
