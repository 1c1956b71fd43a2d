// The chat list in pages with people (docs/sessions.md "History in pages", P6-P9), over a listening server with three
// people: a person's pages hold only the chats they own or were shared, whatever cursor they pass (one made from
// another person's chat included); a share holder's own archived and pinned decide their list, the owner's stay; a
// message page of a chat with deleted messages is the same as the slice of the whole chat; chats stored before the
// list was kept on the session rows are listed as they were.
import { expect, it } from "vitest";
import { systemClock, type Clock } from "../../server/clock.ts";
import { SessionStore } from "../../server/sessions/session-store.ts";
import { chatOf, startHousehold, type Household, shareForReading } from "../people/support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

interface Page {
  sessions: Array<{ id: string; pinned: boolean; archived: boolean; updated_at: string }>;
  next_before?: string | null;
}

async function list(h: Household, token: string, query: string): Promise<Page> {
  const answer = await h.server.request({ method: "GET", url: `/sessions${query}`, token });
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Page;
}

/** Every chat id of the person's list, page after page of `limit`. */
async function walk(h: Household, token: string, limit: number, extra = ""): Promise<string[]> {
  const ids: string[] = [];
  let before: string | null | undefined = null;
  do {
    const page: Page = await list(h, token, `?limit=${limit}${extra}${before ? `&before=${before}` : ""}`);
    ids.push(...page.sessions.map((s) => s.id));
    before = page.next_before;
  } while (before);
  return ids;
}

const cursorOf = (pinned: number, updatedAt: string, id: string) =>
  Buffer.from(JSON.stringify([pinned, updatedAt, id]), "utf8").toString("base64url");

it("P6: a person's pages hold only their own and shared chats, whatever cursor they pass", async () => {
  const h = closing.own(await startHousehold());
  const { admin, adult, child } = h;
  const owners = [admin, adult, child];
  const chats = new Map<string, string[]>(owners.map((p) => [p.id, []]));
  for (let round = 0; round < 4; round++)
    for (const person of owners)
      chats
        .get(person.id)!
        .push(await chatOf(h.server, person.plain.token, `R${round}`, person === child ? "kids" : undefined));
  const sharedWithKid = chats.get(admin.id)![1]!;
  shareForReading(h, sharedWithKid, child.id);

  const kidSees = [...chats.get(child.id)!, sharedWithKid].sort();
  expect((await walk(h, child.plain.token, 2)).sort()).toEqual(kidSees);
  expect((await list(h, child.plain.token, "")).sessions.map((s) => s.id).sort()).toEqual(kidSees);

  // The admin's own cursor, and one forged from the admin's newest chat, give Ana only Ana's chats.
  const adminPage = await list(h, admin.plain.token, "?limit=1");
  const newest = adminPage.sessions[0]!;
  for (const before of [adminPage.next_before!, cursorOf(0, newest.updated_at, newest.id), cursorOf(1, "9", "~")]) {
    const page = await list(h, adult.plain.token, `?limit=50&before=${before}`);
    expect(page.sessions.every((s) => chats.get(adult.id)!.includes(s.id))).toBe(true);
  }
  // A forged cursor past every key gives the whole list, still only Ana's.
  const all = await list(h, adult.plain.token, `?limit=50&before=${cursorOf(1, "9", "~")}`);
  expect(all.sessions.map((s) => s.id).sort()).toEqual([...chats.get(adult.id)!].sort());
});

it("P7: a share holder's own archived and pinned decide their list; the owner's list keeps the owner's", async () => {
  // A clock of its own, so the two chats' updated_at differ without waiting.
  const clock = { t: Date.parse("2026-01-01T00:00:00Z"), now: () => clock.t, sleep: systemClock.sleep };
  const h = closing.own(await startHousehold({}, { clock: clock satisfies Clock }));
  const { admin, adult } = h;
  const first = await chatOf(h.server, admin.plain.token, "FIRST");
  clock.t += 1000;
  const second = await chatOf(h.server, admin.plain.token, "SECOND");
  shareForReading(h, first, adult.id);
  shareForReading(h, second, adult.id);
  const patch = (id: string, payload: object) =>
    h!.server.request({ method: "PATCH", url: `/sessions/${id}`, token: adult.plain.token, payload });
  expect((await patch(first, { pinned: true })).status).toBe(200);
  expect((await patch(second, { archived: true })).status).toBe(200);

  const anas = await list(h, adult.plain.token, "?limit=10");
  expect(anas.sessions.map((s) => [s.id, s.pinned, s.archived])).toEqual([[first, true, false]]);
  const archived = await list(h, adult.plain.token, "?limit=10&archived=only");
  expect(archived.sessions.map((s) => [s.id, s.archived])).toEqual([[second, true]]);
  expect((await list(h, adult.plain.token, "?archived=include")).sessions.map((s) => s.id)).toEqual([first, second]);

  const owners = await list(h, admin.plain.token, "?limit=10");
  expect(owners.sessions.map((s) => [s.id, s.pinned, s.archived])).toEqual([
    [second, false, false],
    [first, false, false],
  ]);
});

it("P8: a page of a chat with deleted messages is the slice of the whole chat at the same indices", async () => {
  const h = closing.own(await startHousehold());
  const token = h.admin.plain.token;
  const id = await chatOf(h.server, token, "m0");
  for (let i = 1; i < 12; i++) {
    const answer = await h.server.request({
      method: "POST",
      url: `/sessions/${id}/messages`,
      token,
      payload: { role: i % 2 === 0 ? "user" : "assistant", content: `m${i}` },
    });
    expect(answer.status).toBe(201);
  }
  const deleted = await h.server.request({
    method: "DELETE",
    url: `/sessions/${id}/messages`,
    token,
    payload: { indices: [2, 3, 7] },
  });
  expect(deleted.status).toBe(200);
  const whole = (await h.server.request({ method: "GET", url: `/sessions/${id}`, token })).json.session;
  const walked: unknown[] = [];
  let before: number | undefined;
  do {
    const query = `?messages_limit=3${before === undefined ? "" : `&messages_before=${before}`}`;
    const page = (await h.server.request({ method: "GET", url: `/sessions/${id}${query}`, token })).json.session;
    expect(page.messages_total).toBe(whole.messages.length);
    expect(page.messages).toEqual(whole.messages.slice(page.messages_start, page.messages_start + 3));
    walked.unshift(...page.messages);
    before = page.messages_start;
  } while (before !== 0);
  expect(walked).toEqual(whole.messages);
});

it("P9: chats stored before the list was kept on the session rows are listed as they were once the store opens", async () => {
  const h = closing.own(await startHousehold());
  const token = h.admin.plain.token;
  await chatOf(h.server, token, "OLD ONE");
  const pinned = await chatOf(h.server, token, "OLD TWO");
  expect(
    (await h.server.request({ method: "PATCH", url: `/sessions/${pinned}`, token, payload: { pinned: true } })).status,
  ).toBe(200);
  const before = await list(h, token, "?archived=include");
  const { db } = h.server.runtime.ctx;
  db.exec("UPDATE sessions SET summary = NULL, updated_at = NULL, pinned = 0, archived = 0");
  const reopened = new SessionStore(db);
  expect(reopened.summaries.whole(h.admin.id, "include")).toEqual(before.sessions.map(withoutView));
  expect(db.prepare("SELECT count(*) AS n FROM sessions WHERE summary IS NULL").get()).toEqual({ n: 0 });
});

/** A listed chat without what the HTTP answer adds for its viewer (owner, owner_name, shares). */
function withoutView(summary: Record<string, unknown>): Record<string, unknown> {
  const { owner: _owner, owner_name: _name, shares: _shares, ...rest } = summary;
  return rest;
}
