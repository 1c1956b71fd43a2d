// A store for screen tests without a browser (happy-dom): the page's storage, address bar and history are
// happy-dom's; the server, the bridge and the client library's connection are stand-ins each test scripts, since a
// screen test checks what a screen shows for a state or an error, not the wire (test/app/ does that in Chromium).
import type {
  AgentView,
  AnyEvent,
  AppConfig,
  ChatClient,
  ConnectionStatus,
  Credentials,
  Disposer,
  Observable,
  PresentedNotification,
  Session,
} from "../../../client/index.ts";
import type { AppEnv } from "../../../app/src/state/env.ts";
import { memoryCache } from "../../../app/src/state/offline-cache.ts";
import { createStore, type AppStore } from "../../../app/src/state/store.ts";

/** The library's Observable: get(), and subscribe() to later changes only. */
export class Value<T> implements Observable<T> {
  private listeners = new Set<(value: T) => void>();
  constructor(private value: T) {}
  get(): T {
    return this.value;
  }
  set(value: T): void {
    this.value = value;
    for (const listener of [...this.listeners]) listener(value);
  }
  subscribe(listener: (value: T) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export const CREDENTIALS: Credentials = {
  server_id: "srv1",
  device_id: "dev1",
  device_token: "token-1",
  server_url: "http://server.test",
  bridge_url: "ws://bridge.test/socket",
} as Credentials;

export const AGENT: AgentView = {
  agent_id: "default",
  provider_id: "default",
  provider: "reference_compatible",
  model: "scripted",
  base_url: "http://backend.test/v1",
  endpoint: null,
  endpoint_options: {},
  request_options_ui: {},
  show_usage: false,
  show_estimated_cached_tokens: false,
  allow_image_attachment_base64: true,
  allow_image_attachment_url: true,
};

/** A session as the server answers it: empty, untitled. */
export function sessionOf(id: string, fields: Partial<Session> = {}): Session {
  const at = "2026-11-27T07:00:00.000Z";
  return {
    id,
    agent_id: "default",
    version: 1,
    created_at: at,
    updated_at: at,
    messages: [],
    metadata: {},
    ...fields,
  } as Session;
}

export interface FakeClient {
  status: Value<ConnectionStatus>;
  client: ChatClient;
}

/** A ChatClient stand-in: every call a screen makes, answered by `calls` (default: an empty server). */
export function fakeClient(calls: Partial<Record<string, (...args: never[]) => unknown>> = {}): FakeClient {
  const status = new Value<ConnectionStatus>({ state: "live" });
  const none = new Value<readonly PresentedNotification[]>([]);
  const client = {
    credentials: CREDENTIALS,
    status,
    start: () => client,
    close: () => undefined,
    on: () => () => undefined,
    onReset: () => () => undefined,
    // No saved event cursor: every start reads the list (docs/app.md "Start from the cache").
    resumed: async () => false,
    keepCursor: () => undefined,
    listSessions: async () => [],
    // The paged read: the whole of listSessions in one page, unless a test gives its own pages.
    listSessionsPage: async () => ({
      sessions: await (client.listSessions as () => Promise<unknown[]>)(),
      next_before: null,
    }),
    getSession: async (id: string) => sessionOf(id),
    // The paged read: the whole of getSession as one page (a chat short enough to load whole).
    getSessionPage: async (id: string) => {
      const session = await (client.getSession as (id: string) => Promise<Session>)(id);
      return { ...session, messages_total: session.messages.length, messages_start: 0 };
    },
    listAgents: async () => [AGENT],
    listModels: async () => ({
      provider_id: "default",
      base_url: "",
      model: "scripted",
      models: [],
      custom_model_allowed: true,
    }),
    loadMessages: async () => ({ messages: [], cursor_event_id: "0".repeat(20), events: [], dispose: () => undefined }),
    notifications: {
      application: none,
      session: () => none,
      watchSession: async () => () => undefined,
      history: async () => [],
      invalidations: { pending: new Value([]) },
    },
    ...calls,
  };
  return { status, client: client as unknown as ChatClient };
}

export interface LiveChat extends FakeClient {
  /** The request ids the screen asked to cancel, in order. */
  cancels: string[];
  /** Pushes an event of chat s1 to the open chat, numbered after the last one pushed. */
  emit(type: string, fields?: Record<string, unknown>): void;
}

/** Chat s1 holding the user's "hi", whose later events the test pushes and whose Stop it records. */
export function liveChat(calls: Partial<Record<string, (...args: never[]) => unknown>> = {}): LiveChat {
  let listener: ((event: AnyEvent) => void) | undefined;
  const cancels: string[] = [];
  const fake = fakeClient({
    loadMessages: (_id: never, onEvent: never) => (
      (listener = onEvent),
      Promise.resolve({
        messages: [{ role: "user", content: "hi" }],
        cursor_event_id: "0".repeat(20),
        events: [],
        dispose: () => undefined,
      })
    ),
    cancel: (_session: never, request: never) => (cancels.push(request), Promise.resolve()),
    ...calls,
  });
  let id = 0;
  const emit = (type: string, fields: Record<string, unknown> = {}) =>
    listener!({ event_id: String(++id).padStart(20, "0"), type, session_id: "s1", ...fields } as AnyEvent);
  return { ...fake, cancels, emit };
}

export interface TestStore {
  store: AppStore;
  env: AppEnv;
  reported: Array<{ message: string; detail: unknown }>;
  copied: string[];
}

/**
 * The device's side of an AppEnv in a test: a narrow, online, secure Chrome that pairs nothing, confirms everything,
 * stands at 2026-11-27 08:00 UTC, and keeps what it copied and reported in the given lists.
 */
export function deviceStandIns(
  reported: Array<{ message: string; detail: unknown }>,
  copied: string[],
): Omit<AppEnv, "storage" | "offline" | "location" | "history" | "onHashChange" | "fetch" | "connect"> {
  return {
    pair: async () => {
      throw new Error("this test pairs nothing");
    },
    isWide: () => false,
    userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0",
    isSecureContext: true,
    isOnline: () => true,
    onOnlineChange: () => () => undefined,
    copyText: async (text) => (copied.push(text), true),
    confirm: () => true,
    now: () => Date.parse("2026-11-27T08:00:00Z"),
    report: (message, detail) => void reported.push({ message, detail }),
    wipeServiceWorkerData: () => undefined,
  };
}

const live: AppStore[] = [];

/** Stops every store a test made (they listen to the page's hashchange, which the next test shares). */
export function disposeStores(): void {
  live.splice(0).forEach((store) => store.dispose());
}

/** A store over happy-dom's page with stand-ins for the network; `paired` starts it with stored credentials. */
export async function testStore(
  options: { env?: Partial<AppEnv>; client?: FakeClient; appConfig?: AppConfig; hash?: string } = {},
): Promise<TestStore> {
  localStorage.clear();
  history.replaceState(null, "", options.hash ?? "#/");
  const reported: TestStore["reported"] = [];
  const copied: string[] = [];
  if (options.client) localStorage.setItem("chat-relay:credentials", JSON.stringify(CREDENTIALS));
  const env: AppEnv = {
    storage: localStorage,
    offline: memoryCache(),
    location,
    history,
    onHashChange: (listener) => (
      addEventListener("hashchange", listener),
      () => removeEventListener("hashchange", listener)
    ),
    fetch: async (url) => {
      if (url.endsWith("/app-config.json") && options.appConfig) return Response.json(options.appConfig);
      return new Response("{}", { status: 404 });
    },
    connect: (() => {
      if (!options.client) throw new Error("this test has no client");
      return options.client.client;
    }) as AppEnv["connect"],
    ...deviceStandIns(reported, copied),
    ...options.env,
  };
  const store = createStore(env);
  live.push(store);
  await store.start();
  return { store, env, reported, copied };
}
