// The typed calls of the shares routes (client/wire/routes/shares.ts, docs/people.md "Sharing"): the owner's.
import type { Session } from "../../wire/messages.ts";
import { shareSessionRoute, unshareSessionRoute, type ShareAccess } from "../../wire/routes/shares.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class ShareCalls extends RouteCaller {
  /** Shares the chat with a person (or changes their access); answers the chat with its `shares`. */
  async shareSession(sessionId: string, personId: string, access: ShareAccess): Promise<Session> {
    const params = { session_id: sessionId };
    return (await this.call(shareSessionRoute, { params, body: { person_id: personId, access } })).session;
  }

  /** Stops sharing the chat with a person: their devices get `session_access_revoked`. */
  async unshareSession(sessionId: string, personId: string): Promise<void> {
    await this.call(unshareSessionRoute, { params: { session_id: sessionId, person_id: personId } });
  }
}
