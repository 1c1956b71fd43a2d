// How a list of chats is shown to one person (server/people/session-views.ts, docs/people.md "Visibility"), over a
// listening server's own database: each chat gets its owner, the owner's name and its shares, a share holder sees
// their own pinned and archived, the owner the chat's; and a list of any length is read in the same two queries (a
// page of 50 chats cost 100 before), counted on the real statements.
import { expect, it } from "vitest";
import type { Db } from "../../server/db/database.ts";
import { SessionViews } from "../../server/people/session-views.ts";
import { chatOf, startHousehold, type Household } from "./support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

/** The database with every run of a statement prepared through it counted (reads and writes alike). */
function counted(db: Db): { db: Db; runs: () => number } {
  let runs = 0;
  const countedStatement = (statement: object) =>
    new Proxy(statement, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== "function" || !["all", "get", "run", "iterate"].includes(String(key))) return value;
        return (...args: unknown[]) => (runs++, (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
  const wrapped = new Proxy(db, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (key !== "prepare") return typeof value === "function" ? value.bind(target) : value;
      return (source: string) => countedStatement(target.prepare(source));
    },
  });
  return { db: wrapped, runs: () => runs };
}

function share(h: Household, sessionId: string, personId: string, flags: { pinned?: 1; archived?: 1 }, at: number) {
  h.server.runtime.ctx.db
    .prepare(
      "INSERT INTO session_shares (session_id, person_id, access, pinned, archived, created_at) VALUES (?, ?, 'read', ?, ?, ?)",
    )
    .run(sessionId, personId, flags.pinned ?? 0, flags.archived ?? 0, at);
}

it("a list of chats is viewed in two queries whatever its length, each chat with its owner, shares and flags", async () => {
  const h = closing.own(await startHousehold());
  const { admin, adult, child } = h;
  const mine = [];
  for (let i = 0; i < 6; i++) mine.push(await chatOf(h.server, admin.plain.token, `mine ${i}`));
  const theirs = await chatOf(h.server, adult.plain.token, "theirs");
  share(h, mine[0]!, child.id, {}, 2);
  share(h, mine[0]!, adult.id, { pinned: 1 }, 1);
  share(h, mine[1]!, adult.id, { archived: 1 }, 3);
  const { db, runs } = counted(h.server.runtime.ctx.db);
  const views = new SessionViews(db);
  const listed = [...mine, theirs, "no-such-chat"].map((id) => ({ id, pinned: false, archived: false }));

  const before = runs();
  const seen = views.viewAll(listed, adult.id);
  expect(runs() - before).toBe(2);
  expect(seen[0]).toEqual({
    id: mine[0],
    pinned: true,
    archived: false,
    owner: admin.id,
    owner_name: admin.name,
    shares: [
      { person_id: adult.id, access: "read" },
      { person_id: child.id, access: "read" },
    ],
  });
  expect(seen[1]).toMatchObject({ pinned: false, archived: true, shares: [{ person_id: adult.id, access: "read" }] });
  expect(seen[2]).toEqual({
    id: mine[2],
    pinned: false,
    archived: false,
    owner: admin.id,
    owner_name: admin.name,
    shares: [],
  });
  expect(seen[6]).toMatchObject({ owner: adult.id, owner_name: adult.name, shares: [] });
  expect(seen[7]).toEqual({ id: "no-such-chat", pinned: false, archived: false });

  const few = runs();
  expect(views.viewAll(listed.slice(0, 2), admin.id).map((chat) => chat.pinned)).toEqual([false, false]);
  expect(runs() - few).toBe(2);
  const none = runs();
  expect(views.viewAll([], admin.id)).toEqual([]);
  expect(runs() - none).toBe(0);
});
