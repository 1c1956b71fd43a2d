// A chat as one person sees it (docs/people.md "Visibility"): every session a route answers carries `owner` (person
// id), `owner_name` and `shares`, and `pinned`/`archived` are the viewer's own (the owner's live in the session, a
// share holder's on their share row).
import type { Db } from "../db/database.ts";

type Viewed = { id: string; pinned?: boolean; archived?: boolean; [key: string]: unknown };

export interface ChatView {
  owner: string;
  owner_name: string;
  shares: { person_id: string; access: "read" | "write" }[];
}

export class SessionViews {
  private readonly selectOwner;
  private readonly selectShares;

  constructor(db: Db) {
    this.selectOwner = db.prepare<[string], { owner: string; owner_name: string }>(
      "SELECT s.owner_id AS owner, p.name AS owner_name FROM sessions s JOIN people p ON p.id = s.owner_id WHERE s.id = ?",
    );
    this.selectShares = db.prepare<
      [string],
      { person_id: string; access: "read" | "write"; pinned: number; archived: number }
    >(
      "SELECT person_id, access, pinned, archived FROM session_shares WHERE session_id = ? ORDER BY created_at, person_id",
    );
  }

  /** The session (or summary) with its owner and shares, and the viewer's own flags; unchanged when unknown. */
  view<T extends Viewed>(session: T, viewerId: string): T & Partial<ChatView> {
    const owner = this.selectOwner.get(session.id);
    if (!owner) return session;
    const shares = this.selectShares.all(session.id);
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
}
