// The app's state in one store, made by one function and handed to the screens by context (the pattern Preact's
// signals guide recommends: no module-level signals read by screens), so every screen renders from a store built in
// a test as well as from the page's (docs/app.md "State").
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { effect, signal, untracked, type ReadonlySignal } from "@preact/signals";
import type { AppConfig } from "../../../client/index.ts";
import { createAdmin, type Admin } from "./admin.ts";
import { appConfigLoader } from "./app-config.ts";
import { createConnection, type Connection } from "./connection.ts";
import type { AppEnv } from "./env.ts";
import { readStored, writeStored } from "./local-store.ts";
import { createPairing, type Pairing } from "./pairing.ts";
import { createRouter, type Route, type Router } from "./router.ts";
import { createSessions, type Sessions } from "./sessions.ts";
import { listCursorStore } from "./list-cursor.ts";
import { bindShortcuts } from "./shortcuts.ts";
import { createSync, type Sync } from "./sync.ts";
import { z } from "zod";
import { createSearch, type Search } from "../search/search-state.ts";
import { createPeople, type People } from "../people/people-state.ts";
import type { Outbox } from "../offline/outbox.ts";
import { lazyOutbox } from "../offline/lazy-outbox.ts";

const INSECURE_NOTICE_KEY = "chat-relay.insecure-notice-seen";

export interface AppStore {
  readonly env: AppEnv;
  readonly router: Router;
  readonly connection: Connection;
  readonly sessions: Sessions;
  readonly sync: Sync;
  readonly admin: Admin;
  readonly pairing: Pairing;
  /** "Search chats" (app/src/search/). */
  readonly search: Search;
  /** This device's person and the directory (app/src/people/). */
  readonly people: People;
  /** Messages written while the server could not be reached, waiting to be sent (app/src/offline/). */
  readonly outbox: Outbox;
  readonly appConfig: () => Promise<AppConfig | undefined>;
  /** Shown once on a plain http: origin: offline use, install and notifications need HTTPS. */
  readonly insecureNotice: ReadonlySignal<boolean>;
  dismissInsecureNotice(): void;
  /**
   * Restores the cache and a stored pairing, takes a pairing link from the address bar; resolves when ready. What the
   * first screen does not wait for (the people directory's requests, the outbox's code) is handed to `later`: the
   * page puts it after its first paint (docs/app.md "Start-up", SU10); by default it runs at once.
   */
  start(later?: (work: () => void) => void): Promise<void>;
  dispose(): void;
}

export function createStore(env: AppEnv): AppStore {
  const router = createRouter(env);
  // The viewer is read when events arrive, after `people` below exists.
  const sessions = createSessions(env, () => people.me.value?.id);
  const outbox = lazyOutbox(env.report);
  const appConfig = appConfigLoader(env);
  const wipeDevice = async () => {
    // Whatever this device kept of the server's chats goes with its pairing (a lost phone keeps nothing readable).
    sessions.clear();
    outbox.reset();
    env.wipeServiceWorkerData();
    await env.offline.wipe().catch((error: unknown) => env.report("wiping the offline cache failed", error));
    router.navigate({ name: "pair" }, { replace: true });
  };
  const connection = createConnection(env, wipeDevice, listCursorStore(env, sessions));
  const sync = createSync(env, connection, sessions);
  const admin = createAdmin(env, connection);
  const pairing = createPairing(env, connection, router, appConfig);
  const people = createPeople(env, connection);
  // Said once per browser: shown on the first visit from a plain http: origin (until dismissed), never again after.
  const insecureNotice = signal(!env.isSecureContext && readStored(env, INSECURE_NOTICE_KEY, z.literal(true)) !== true);
  if (insecureNotice.value) writeStored(env, INSECURE_NOTICE_KEY, true);
  const stops: Array<() => void> = [];

  /** A pairing link in the address bar: the code leaves it at once; a browser already paired ignores the link. */
  const takeLink = (route: Route) => {
    if (route.name !== "pair" || route.query === undefined) return;
    const query = route.query;
    if (connection.paired.value) return router.navigate({ name: "sessions" }, { replace: true });
    router.navigate({ name: "pair" }, { replace: true });
    void pairing.pairWithLink(query);
  };

  return {
    env,
    router,
    connection,
    sessions,
    sync,
    admin,
    pairing,
    search: createSearch(connection, router, env.offline),
    people,
    outbox,
    appConfig,
    insecureNotice,
    dismissInsecureNotice() {
      insecureNotice.value = false;
    },
    async start(later = (work: () => void) => work()) {
      await sessions.restore();
      await connection.resume().catch((error: unknown) => env.report("resuming the stored pairing failed", error));
      // subscribe() runs at once with the current route, then on every change.
      stops.push(router.listen(), router.route.subscribe(takeLink));
      if (typeof document !== "undefined") stops.push(bindShortcuts(document, router));
      // Now, not later: the client's catch-up has begun, and its events must find the list's listener.
      stops.push(
        effect(() => {
          const current = connection.paired.value;
          return current ? untracked(() => sync.start(current)) : undefined;
        }),
      );
      let stopped = false;
      stops.push(() => void (stopped = true));
      const outboxParts = { env, connection, sessions, sync, outbox, appConfig };
      later(() => stopped || stops.push(people.follow(), startOutbox(outboxParts)));
    },
    dispose() {
      stops.splice(0).forEach((stop) => stop());
      connection.dispose();
    },
  };
}

/**
 * The outbox's code, loaded on its own; what an earlier run left waiting is read and sent once it is in. Returns the
 * function that stops it.
 */
function startOutbox(parts: Pick<AppStore, "env" | "connection" | "sessions" | "sync" | "outbox" | "appConfig">) {
  const { env, connection, sessions, sync, outbox, appConfig } = parts;
  const following = import("../offline/outbox-parts.ts").then(
    ({ followOutbox, followOfflineBound }) => {
      const stopOutbox = followOutbox({ connection, sessions, sync, report: env.report }, outbox);
      const stopBound = followOfflineBound({ connection, appConfig, cache: env.offline, report: env.report });
      return () => (stopOutbox(), stopBound());
    },
    (error: unknown) => (env.report("loading the outbox failed", error), () => undefined),
  );
  return () => void following.then((stop) => stop());
}

export const StoreContext = createContext<AppStore | undefined>(undefined);

export function useStore(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useStore outside <StoreContext.Provider>");
  return store;
}
