// The chat list read in SQL (docs/sessions.md "History in pages"). Every save keeps the head's list keys and summary
// on the session row (migration 17), so a person's list is read from the rows alone: never a version body or a
// message. A person's list is the chats they own (the owner's pinned/archived, on the session row) and the chats
// shared with them (their own pinned/archived, on their share row). A page is, for each of those parts and each
// archived value asked for, an index range after the cursor with its own LIMIT, merged by SQLite: the work is the
// page's size, whatever the number of chats on the server or of this person.
import type { SessionSummary } from "../../client/wire/index.ts";
import { sessionSummaryOf, type Session } from "../../client/wire/index.ts";
import type { Db } from "../db/database.ts";
import type { Cursor } from "./session-pages.ts";

export type ArchivedFilter = "exclude" | "include" | "only";

/** One listed chat: its summary (with the viewer's flags) and its place in the list's order. */
interface ListRow {
  id: string;
  pinned: number;
  archived: number;
  updated_at: string;
  summary: string;
}

/** Keys a cursor is compared with; before every real row, so the first page is the same query. */
const START: readonly [number, string, string] = [2, "", ""];

const ARCHIVED_VALUES: Record<ArchivedFilter, number[]> = { exclude: [0], include: [0, 1], only: [1] };

/** A part of the list (owned or shared) for one archived value, as a SELECT with the row's effective flags. */
function part(kind: "owned" | "shared", archived: number): string {
  if (kind === "owned")
    return `SELECT s.id, s.pinned, s.archived, s.updated_at, s.created_at, s.summary FROM sessions s
      WHERE s.owner_id = @person AND s.archived = ${archived} AND s.deleted_at IS NULL`;
  return `SELECT s.id, h.pinned, h.archived, s.updated_at, s.created_at, s.summary
      FROM session_shares h JOIN sessions s ON s.id = h.session_id
      WHERE h.person_id = @person AND h.archived = ${archived} AND s.deleted_at IS NULL AND s.owner_id <> @person`;
}

/** The page query: each part's own first `limit` rows after the cursor, then the first `limit` of them all. */
function pageSql(filter: ArchivedFilter): string {
  const parts = ARCHIVED_VALUES[filter].flatMap((archived) =>
    (["owned", "shared"] as const).map(
      (kind) => `SELECT * FROM (SELECT * FROM (${part(kind, archived)}) r
        WHERE (r.pinned, r.updated_at, r.id) < (@pinned, @updated, @id)
        ORDER BY r.pinned DESC, r.updated_at DESC, r.id DESC LIMIT @limit)`,
    ),
  );
  return `${parts.join(" UNION ALL ")} ORDER BY pinned DESC, updated_at DESC, id DESC LIMIT @limit`;
}

/** The whole list, in the order it always had: pinned, newest activity, then newest chat first, then the id. */
function wholeSql(filter: ArchivedFilter): string {
  const parts = ARCHIVED_VALUES[filter].flatMap((archived) => [part("owned", archived), part("shared", archived)]);
  return `${parts.join(" UNION ALL ")} ORDER BY pinned DESC, updated_at DESC, created_at DESC, id ASC`;
}

type PageParams = { person: string; pinned: number; updated: string; id: string; limit: number };

export class SessionList {
  private readonly pages = new Map<ArchivedFilter, ReturnType<Db["prepare"]>>();
  private readonly wholes = new Map<ArchivedFilter, ReturnType<Db["prepare"]>>();
  private readonly writeRow;

  constructor(private readonly db: Db) {
    for (const filter of ["exclude", "include", "only"] as const) {
      this.pages.set(filter, db.prepare<[PageParams], ListRow>(pageSql(filter)));
      this.wholes.set(filter, db.prepare<[{ person: string }], ListRow>(wholeSql(filter)));
    }
    this.writeRow = db.prepare<[string, number, number, string, string]>(
      "UPDATE sessions SET updated_at = ?, pinned = ?, archived = ?, summary = ? WHERE id = ?",
    );
  }

  /** Keeps the head's list keys and summary on its row. Call in the transaction that saves the version. */
  write(head: Session): void {
    const summary = sessionSummaryOf(head);
    this.writeRow.run(
      head.updated_at,
      summary.pinned ? 1 : 0,
      summary.archived ? 1 : 0,
      JSON.stringify(summary),
      head.id,
    );
  }

  /** Fills in the rows of chats saved before the list was kept on them (once, when the store opens). */
  backfill(headOf: (sessionId: string) => Session | undefined): void {
    const ids = this.db
      .prepare<[], { id: string }>("SELECT id FROM sessions WHERE summary IS NULL AND deleted_at IS NULL")
      .all();
    if (ids.length === 0) return;
    this.db.transaction(() => {
      for (const { id } of ids) {
        const head = headOf(id);
        if (head) this.write(head);
      }
    })();
  }

  /** Up to `limit` of the person's chats after `before` (from the start without it), in the list's order. */
  page(person: string, filter: ArchivedFilter, limit: number, before: Cursor | undefined): SessionSummary[] {
    const [pinned, updated, id] = before ?? START;
    const rows = this.pages.get(filter)!.all({ person, pinned, updated, id, limit }) as ListRow[];
    return rows.map(summaryOf);
  }

  /** Every chat of the person the filter keeps, in the list's order. */
  whole(person: string, filter: ArchivedFilter): SessionSummary[] {
    return (this.wholes.get(filter)!.all({ person }) as ListRow[]).map(summaryOf);
  }
}

/** The stored summary with the viewer's flags (a share holder's own); its keys keep their places on the wire. */
function summaryOf(row: ListRow): SessionSummary {
  const summary = JSON.parse(row.summary) as SessionSummary;
  return { ...summary, pinned: row.pinned === 1, archived: row.archived === 1 };
}
