// The event cursor kept with the cached chat list (docs/app.md "Start from the cache"): the client library's
// CursorStore over the offline cache. A start resumes from it only over the whole cached list, read before the
// library reads any event, so the events after the cursor are applied to that list; without a cached list there is
// nothing to resume, and the list is read again from the server.
import type { CursorStore } from "../../../client/index.ts";
import type { AppEnv } from "./env.ts";
import type { Sessions } from "./sessions.ts";

export function listCursorStore(env: Pick<AppEnv, "offline">, sessions: Pick<Sessions, "restoredWhole">): CursorStore {
  return {
    async load() {
      const cachedList = await sessions.restoredWhole();
      return cachedList ? env.offline.readCursor() : undefined;
    },
    save: (saved) => env.offline.writeCursor(saved),
    forget: () => env.offline.forgetCursor(),
  };
}
