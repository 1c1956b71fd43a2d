// The chat list's walk for one start (sync.ts): one walk of the server's pages at a time, which a status change, a
// reset or an invalidation during it joins. A walk that fails on the network marks the list offline (the next live or
// polling status walks it again); one that fails otherwise (an error answer, an answer the contract refuses) is
// reported, and walked again after a pause (WALK_RETRY_DELAYS_MS) or at the next live or polling status, whichever
// comes first: the list it leaves is a part of the server's, loaded and not offline, which nothing else would walk
// again (docs/app.md OF15). The walk is its start's: a stopped start's walk applies nothing more, and the next start,
// another pairing's perhaps, walks its own (SC5).
import { NetworkError } from "../../../client/index.ts";
import { UNREACHABLE_AFTER_MS } from "./chat-feed.ts";
import type { Connection, Paired } from "./connection.ts";
import type { AppEnv } from "./env.ts";
import { keepPinnedOffline } from "./offline-pinned.ts";
import { walkSessionPages } from "./session-pages.ts";
import type { Sessions } from "./sessions.ts";

/** The pauses before the walks after failed ones: soon after a blip, then every five minutes. */
export const WALK_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 300_000];

export interface ListWalk {
  /** Walks the list, or joins the walk under way. */
  walk(): Promise<void>;
  /** Whether the last walk failed (not on the network): the list shown may be a part of the server's. */
  failed(): boolean;
  /** Ends the start's walking: a walk under way applies nothing more, and no pause's walk follows. */
  stop(): void;
}

type Outcome = "whole" | "offline" | "failed" | "stopped";

export function listWalk(env: AppEnv, connection: Connection, sessions: Sessions, current: Paired): ListWalk {
  let walking: Promise<void> | undefined;
  let failures = 0;
  let again: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const once = async () => {
    clearTimeout(again);
    const outcome = await walkSessions(env, connection, sessions, current, () => stopped);
    failures = outcome === "failed" ? failures + 1 : 0;
    if (failures === 0 || stopped) return;
    const pause = WALK_RETRY_DELAYS_MS[Math.min(failures, WALK_RETRY_DELAYS_MS.length) - 1];
    again = setTimeout(() => void walk(), pause);
  };
  const walk = () => (stopped ? Promise.resolve() : (walking ??= once().finally(() => (walking = undefined))));
  return {
    walk,
    failed: () => failures > 0,
    stop() {
      stopped = true;
      clearTimeout(again);
    },
  };
}

/** Reads the chat list in pages; a network failure, or a first page that is late, marks the list offline. */
async function walkSessions(
  env: AppEnv,
  connection: Connection,
  sessions: Sessions,
  current: Paired,
  stopped: () => boolean,
): Promise<Outcome> {
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
    return "whole";
  } catch (error) {
    if (stopped()) return "stopped";
    connection.noteCall(error);
    if (error instanceof NetworkError) return (sessions.markOffline(), "offline");
    env.report("loading the chat list failed", error);
    return "failed";
  } finally {
    clearTimeout(late);
  }
}
