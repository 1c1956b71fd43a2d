// An imported chat's messages written in slices before the chat exists (docs/export.md "In slices"): one transaction
// holding all 10,000 messages of a conversation held the server (and every streaming reply, which waits for the write
// lock) for tens of milliseconds. The messages go in as rows of a session id no reader has been given, a slice of
// SLICE_MS at most per transaction, the event loop getting a turn between; then one short transaction creates the
// session over them (SessionService.createFromStaged), so the chat appears whole at once. The ids being staged are
// listed in meta `import_staged`, written before the first row: a chat a crash cut off midway is removed at the next
// start, and a failed one at once, so no half chat is ever seen or left on disk.
import type { Message } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import { Meta } from "../db/meta.ts";
import type { Transactor } from "../db/transactor.ts";
import type { SessionService } from "../sessions/session-service.ts";
import type { Slices } from "./slices.ts";

const STAGED_KEY = "import_staged";

export class ImportStaging {
  private readonly meta: Meta;

  constructor(
    db: Db,
    private readonly transactor: Transactor,
    private readonly sessions: Pick<SessionService, "stageMessages" | "dropStaged">,
  ) {
    this.meta = new Meta(db);
  }

  /** Removes the chats a crash left staged: nothing can be importing yet. */
  recover(): void {
    for (const sessionId of this.staged()) this.abandon(sessionId);
  }

  /** Writes `messages` under `sessionId` (a session not created yet) in slices of at most the slice budget. */
  async stage(sessionId: string, messages: readonly Message[], slices: Slices): Promise<void> {
    this.transactor.run(() => this.meta.set(STAGED_KEY, JSON.stringify([...this.staged(), sessionId])));
    for (let from = 0; from < messages.length;) {
      const to = this.transactor.run(() => {
        let at = from;
        do this.sessions.stageMessages(sessionId, at, messages.slice(at, ++at));
        while (at < messages.length && !slices.due());
        return at;
      });
      from = to;
      await slices.step();
    }
  }

  /** The chat was created over its staged messages: call inside that transaction. */
  done(sessionId: string): void {
    this.meta.set(STAGED_KEY, JSON.stringify(this.staged().filter((id) => id !== sessionId)));
  }

  /** Removes a chat's staged messages (it failed, or a crash cut it off) and its mention in meta. */
  abandon(sessionId: string): void {
    this.transactor.run(() => {
      this.sessions.dropStaged(sessionId);
      this.done(sessionId);
    });
  }

  private staged(): string[] {
    const value = this.meta.get(STAGED_KEY);
    return value === undefined ? [] : (JSON.parse(value) as string[]);
  }
}
