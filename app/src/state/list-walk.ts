// The chat list's walk for one start (sync.ts): one walk of the server's pages at a time, which a status change, a
// reset or an invalidation during it joins. The walk is its start's: a stopped start's walk applies nothing more, and
// the next start, another pairing's perhaps, walks its own (docs/app.md SC5).
import { NetworkError } from "../../../client/index.ts";
import { UNREACHABLE_AFTER_MS } from "./chat-feed.ts";
import type { Connection, Paired } from "./connection.ts";
import type { AppEnv } from "./env.ts";
import { keepPinnedOffline } from "./offline-pinned.ts";
import { walkSessionPages } from "./session-pages.ts";
import type { Sessions } from "./sessions.ts";

export interface ListWalk {
  /** Walks the list, or joins the walk under way. */
  walk(): Promise<void>;
  /** Ends the start's walking: a walk under way applies nothing more. */
  stop(): void;
}

export function listWalk(env: AppEnv, connection: Connection, sessions: Sessions, current: Paired): ListWalk {
  let walking: Promise<void> | undefined;
  let stopped = false;
  const walk = () =>
    stopped
      ? Promise.resolve()
      : (walking ??= walkSessions(env, connection, sessions, current, () => stopped).finally(
          () => (walking = undefined),
        ));
  return {
    walk,
    stop: () => void (stopped = true),
  };
}

/** Reads the chat list in pages; a network failure, or a first page that is late, marks the list offline. */
async function walkSessions(
  env: AppEnv,
  connection: Connection,
  sessions: Sessions,
  current: Paired,
  stopped: () => boolean,
): Promise<void> {
  // With neither the server nor the bridge answering, the first page may wait up to the relay's push timeout (35 s).
  // Past the bound a chat waits (chat-feed.ts), the list says it shows the chats loaded last; a page that comes
  // later takes that back (mergePage).
  let answered = false;
  const late = setTimeout(() => answered || stopped() || sessions.markOffline(), UNREACHABLE_AFTER_MS);
  // A page that comes after its start stopped ends the walk: it is a pairing's no longer shown (the device wiped, or
  // paired again), and applied it would be shown and cached as the next one's.
  const unlessStopped = () => {
    if (stopped()) throw new Error("the walk's start stopped");
  };
  try {
    const list = await walkSessionPages(current.client, {
      list: sessions.list,
      replace: (settled) => (unlessStopped(), sessions.replace(settled)),
      mergePage: (page) => (unlessStopped(), (answered = true), sessions.mergePage(page)),
    });
    connection.noteCall();
    // The list kept now reflects every event delivered so far: the cursor is saved with it from here on.
    current.client.keepCursor();
    keepPinnedOffline(env, current, list).catch((error: unknown) =>
      env.report("keeping the pinned chats offline failed", error),
    );
  } catch (error) {
    if (stopped()) return;
    connection.noteCall(error);
    if (error instanceof NetworkError) sessions.markOffline();
    else env.report("loading the chat list failed", error);
  } finally {
    clearTimeout(late);
  }
}
