// Keeps the store in step with the server while paired: the chat list (loaded, then updated from events), the
// agents, and the ui_effects invalidations (reload the list, a chat, or the agents). Failures are kept where a
// screen shows them, or reported: none is dropped silently.
import { signal, type ReadonlySignal } from "@preact/signals";
import type { AgentView, Invalidation } from "../../../client/index.ts";
import { UNREACHABLE_AFTER_MS } from "./chat-feed.ts";
import type { Connection, Paired } from "./connection.ts";
import type { AppEnv } from "./env.ts";
import { nextTask } from "./frames.ts";
import { listWalk, type ListWalk } from "./list-walk.ts";
import { keepPinnedOffline } from "./offline-pinned.ts";
import type { Sessions } from "./sessions.ts";

export interface Sync {
  readonly agents: ReadonlySignal<AgentView[]>;
  /** Why the agents could not be loaded, for the chat screen to say. */
  readonly agentsProblem: ReadonlySignal<unknown>;
  /** Bumped when a chat must be reloaded (ui_effects reload_session_ids); the chat screen reloads on change. */
  readonly sessionReloads: ReadonlySignal<Record<string, number>>;
  /** Starts syncing with this pairing; returns the function that stops it. */
  start(current: Paired): () => void;
  /** Session ids deleted while this app was open: their cached transcripts are gone; a chat open on one says so. */
  readonly deleted: ReadonlySignal<ReadonlySet<string>>;
}

export function createSync(env: AppEnv, connection: Connection, sessions: Sessions): Sync {
  const agents = signal<AgentView[]>([]);
  const agentsProblem = signal<unknown>(undefined);
  const sessionReloads = signal<Record<string, number>>({});
  const deleted = signal<ReadonlySet<string>>(new Set());

  const loadAgents = async ({ client }: Paired) => {
    try {
      agents.value = await client.listAgents();
      agentsProblem.value = undefined;
    } catch (error) {
      agentsProblem.value = error;
    }
  };
  const reloadSession = (session_id: string) => {
    sessionReloads.value = { ...sessionReloads.value, [session_id]: (sessionReloads.value[session_id] ?? 0) + 1 };
  };
  const runInvalidation = (current: Paired, list: ListWalk, invalidation: Invalidation) => {
    if (invalidation.claimed) return;
    const target = invalidation.target;
    current.client.notifications.invalidations
      .reload(target, async () => {
        if (target.kind === "sessions_list") await list.walk();
        else if (target.kind === "session") reloadSession(target.session_id);
        else await loadAgents(current);
      })
      .catch((error: unknown) => env.report("a ui_effects reload failed", error));
  };

  return {
    agents,
    agentsProblem,
    sessionReloads,
    deleted,
    start(current) {
      const { client } = current;
      const offEvents = client.on("*", (event) => {
        sessions.apply(event);
        if (sessions.losesAccess(event)) deleted.value = new Set([...deleted.value, event.session_id]);
      });
      // The list's walks are this start's: a stopped start's walk is not the next one's (docs/app.md SC5).
      const list = listWalk(env, connection, sessions, current);
      const offReset = client.onReset(() => void list.walk());
      const resumed = resumedList(env, current, sessions, connection);
      const offStatus = client.status.subscribe((status) => {
        if (resumed.follow(status.state)) return;
        if (status.state !== "live" && status.state !== "polling") return;
        if (sessions.offline.value || !sessions.loaded.value || list.failed()) void list.walk();
        if (agents.value.length === 0) void loadAgents(current);
      });
      const offInvalidations = client.notifications.invalidations.pending.subscribe((pending) =>
        pending.forEach((item) => runInvalidation(current, list, item)),
      );
      // A start from the saved cursor applies the events after it to the cached list; any other reads the list, in
      // a task after the one the client's start resolved in: that task read the saved cursor and began the client's
      // reading, and the walk's first request with them made one long task of a phone's main thread (SC4).
      let stopped = false;
      void client.resumed().then(async (fromCursor) => {
        if (stopped) return;
        if (fromCursor) return resumed.begin();
        await nextTask();
        if (!stopped) void list.walk();
      });
      void loadAgents(current);
      return () => {
        stopped = true;
        offEvents();
        offReset();
        offStatus();
        offInvalidations();
        resumed.stop();
        list.stop();
      };
    },
  };
}

/**
 * The list of a start that resumed from the saved cursor: the cached list, caught up by the events after it (the
 * library delivers them as it would live). Current once the client is live or polling; offline when it says so, or
 * when it has not caught up within UNREACHABLE_AFTER_MS (as a walk's late first page). `follow` says whether it took
 * the status (a resumed start never walks the list for it; a reset still does, through onReset). Going live or polling
 * clears a "server offline" the last failed call left, as a walk's answer does.
 */
function resumedList(env: AppEnv, current: Paired, sessions: Sessions, connection: Connection) {
  let resumed = false;
  let reached = false;
  let late: ReturnType<typeof setTimeout> | undefined;
  const keepPinned = () =>
    keepPinnedOffline(env, current, sessions.list.value).catch((error: unknown) =>
      env.report("keeping the pinned chats offline failed", error),
    );
  return {
    begin() {
      resumed = true;
      late = setTimeout(() => reached || sessions.markOffline(), UNREACHABLE_AFTER_MS);
    },
    follow(state: string): boolean {
      if (!resumed) return false;
      if (state === "offline") sessions.markOffline();
      if (state !== "live" && state !== "polling") return true;
      if (!reached) void keepPinned();
      reached = true;
      sessions.markCurrent();
      // The catch-up answered: the server is reachable again (what a walk's answer tells the badge otherwise).
      connection.noteCall();
      return false;
    },
    stop: () => clearTimeout(late),
  };
}
