// A chat as one person sees it (docs/people.md "Visibility"): every session a route answers carries `owner` (person
// id), `owner_name` and `shares`, and `pinned`/`archived` are the viewer's own (the owner's live in the session, a
// share holder's on their share row). A list is viewed in two queries whatever its length (the ids passed as one
// JSON array), never two a chat: a page of 50 chats cost 100 queries before.
import type { Db } from "../db/database.ts";

type Viewed = { id: string; pinned?: boolean; archived?: boolean; [key: string]: unknown };

export interface ChatView {
  owner: string;
  owner_name: string;
  shares: { person_id: string; access: "read" | "write" }[];
}

type OwnerRow = { session_id: string; owner: string; owner_name: string };
type ShareRow = { session_id: string; person_id: string; access: "read" | "write"; pinned: number; archived: number };

export class SessionViews {
  private readonly selectOwners;
  private readonly selectShares;

  constructor(db: Db) {
    // The ids as a JSON array: one statement for any number of chats, each looked up by its primary key.
    this.selectOwners = db.prepare<[string], OwnerRow>(
      `SELECT s.id AS session_id, s.owner_id AS owner, p.name AS owner_name
       FROM sessions s JOIN people p ON p.id = s.owner_id WHERE s.id IN (SELECT value FROM json_each(?))`,
    );
    this.selectShares = db.prepare<[string], ShareRow>(
      `SELECT session_id, person_id, access, pinned, archived FROM session_shares
       WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id, created_at, person_id`,
    );
  }

  /** The session (or summary) with its owner and shares, and the viewer's own flags; unchanged when unknown. */
  view<T extends Viewed>(session: T, viewerId: string): T & Partial<ChatView> {
    return this.viewAll([session], viewerId)[0]!;
  }

  /** Each session as view() gives it, in the same order, read in two queries for the whole list. */
  viewAll<T extends Viewed>(sessions: readonly T[], viewerId: string): Array<T & Partial<ChatView>> {
    if (sessions.length === 0) return [];
    const ids = JSON.stringify(sessions.map((session) => session.id));
    const owners = new Map(this.selectOwners.all(ids).map((row) => [row.session_id, row]));
    const shares = new Map<string, ShareRow[]>();
    for (const row of this.selectShares.all(ids)) {
      const those = shares.get(row.session_id);
      if (those) those.push(row);
      else shares.set(row.session_id, [row]);
    }
    return sessions.map((session) => {
      const owner = owners.get(session.id);
      return owner ? withView(session, viewerId, owner, shares.get(session.id) ?? []) : session;
    });
  }
}

function withView<T extends Viewed>(session: T, viewerId: string, owner: OwnerRow, shares: ShareRow[]): T & ChatView {
  const own = shares.find((share) => share.person_id === viewerId);
  const flags =
    own === undefined || viewerId === owner.owner ? {} : { pinned: own.pinned === 1, archived: own.archived === 1 };
  return {
    ...session,
    ...flags,
    owner: owner.owner,
    owner_name: owner.owner_name,
    shares: shares.map(({ person_id, access }) => ({ person_id, access })),
  };
}
