// What the app takes from the world around it: the browser's storage, address bar, network and clock, and the
// client library's connect and pair. The store is made from one of these (browserEnv() in the page, a fake in the
// screen tests), so no screen reaches for a global and every screen renders without a browser.
import { connect, copyText, pair, type ConnectOptions, type FetchLike } from "../../../client/index.ts";
import { takeEarlyHead } from "../early-head.ts";
import { indexedDbCache, memoryCache, type OfflineCache } from "./offline-cache.ts";
import { WIDE_SCREEN_QUERY } from "./use-wide-screen.ts";

export interface AppEnv {
  /** localStorage (credentials, admin token, small preferences). */
  storage: Storage;
  /** Chats and transcripts kept for the offline view (IndexedDB, so the service worker can wipe them too). */
  offline: OfflineCache;
  /** The page's address: the route lives in the hash. */
  location: Pick<Location, "hash" | "origin" | "protocol" | "hostname" | "href">;
  history: Pick<History, "replaceState" | "pushState">;
  onHashChange(listener: () => void): () => void;
  fetch: FetchLike;
  connect: typeof connect;
  /** Extra options for every connection (tests shorten timers). */
  connectOptions?: Omit<ConnectOptions, "storage" | "mode">;
  pair: typeof pair;
  /** True on screens that get the desktop layout and dismissal rules. */
  isWide(): boolean;
  userAgent: string;
  /** False on a plain http: origin that is not localhost: no service worker, clipboard API or push there. */
  isSecureContext: boolean;
  /** navigator.onLine, and a listener for its changes (returns the function that stops listening). */
  isOnline(): boolean;
  onOnlineChange(listener: () => void): () => void;
  /** Copies text; resolves false when the page cannot (no clipboard API and no copy command). */
  copyText(text: string): Promise<boolean>;
  confirm(message: string): boolean;
  now(): number;
  /** Where a failure nobody is shown goes (the console in a page): never dropped silently. */
  report(message: string, detail?: unknown): void;
  /** Tells the service worker (if any) to wipe what it can of this device's data. */
  wipeServiceWorkerData(): void;
}

export function browserEnv(): AppEnv {
  return {
    storage: localStorage,
    offline: typeof indexedDB === "undefined" ? memoryCache() : indexedDbCache(undefined, takeEarlyHead()),
    location,
    history,
    onHashChange(listener) {
      addEventListener("hashchange", listener);
      return () => removeEventListener("hashchange", listener);
    },
    fetch: (input, init) => fetch(input, init),
    connect,
    pair,
    isWide: () => matchMedia(WIDE_SCREEN_QUERY).matches,
    userAgent: navigator.userAgent,
    isSecureContext: globalThis.isSecureContext === true,
    isOnline: () => navigator.onLine !== false,
    onOnlineChange(listener) {
      addEventListener("online", listener);
      addEventListener("offline", listener);
      return () => {
        removeEventListener("online", listener);
        removeEventListener("offline", listener);
      };
    },
    copyText,
    confirm: (message) => confirm(message),
    now: () => Date.now(),
    report: (message, detail) => console.warn(`chat-relay: ${message}`, detail ?? ""),
    wipeServiceWorkerData: () => navigator.serviceWorker?.controller?.postMessage({ type: "wipe-offline-data" }),
  };
}
