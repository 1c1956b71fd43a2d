// The chat guard's edges (server/people/chat-guard.ts, server/people/chat-audiences.ts; docs/people.md "Access"): an
// unknown chat is 404 session_not_found for everyone, the admin token too; the admin token's reads of its own
// person's chats are not audited (only another person's are); a share holder's PATCH of one flag keeps the other, and
// the owner's own PATCH still changes the chat.
import { expect, it } from "vitest";
import { chatOf, startHousehold, shareChat } from "./support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

it("an unknown chat is 404 session_not_found, for a device and for the admin token", async () => {
  const h = closing.own(await startHousehold());
  for (const token of [h.adult.plain.token, undefined]) {
    const answer = await h.server.request({ method: "GET", url: "/sessions/ses_unknown", ...(token ? { token } : {}) });
    expect([answer.status, answer.json.error.code], token ?? "admin").toEqual([404, "session_not_found"]);
    expect(answer.json.error.message).toContain("ses_unknown");
  }
});

it("the admin token's reads are audited only for another person's chat", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, child } = h;
  const own = await chatOf(server, admin.plain.token, "OWN-CHAT");
  const childs = await chatOf(server, child.plain.token, "CHILD-CHAT", "kids");
  const reads = async () =>
    (await server.request({ method: "GET", url: "/audit" })).json.entries.filter(
      (entry: { action: string }) => entry.action === "admin_token_read",
    );
  expect((await server.request({ method: "GET", url: `/sessions/${own}` })).status).toBe(200);
  expect(await reads()).toEqual([]);
  expect((await server.request({ method: "GET", url: `/sessions/${childs}` })).status).toBe(200);
  expect(await reads()).toMatchObject([{ person_id: child.id, session_id: childs }]);
});

it("a share holder's PATCH of one flag keeps the other; the owner's PATCH changes the chat", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult } = h;
  const chat = await chatOf(server, admin.plain.token, "FLAGS");
  const shared = await shareChat(server, admin.plain.token, chat, adult.id, "read");
  expect(shared.status).toBe(200);
  const patch = (payload: Record<string, boolean>) =>
    server.request({ method: "PATCH", url: `/sessions/${chat}`, token: adult.plain.token, payload });
  expect((await patch({ archived: true })).json.session).toMatchObject({ archived: true });
  expect((await patch({ pinned: true })).json.session).toMatchObject({ pinned: true, archived: true });
  expect((await patch({ archived: false })).json.session).toMatchObject({ pinned: true, archived: false });
  // The owner's own PATCH still changes the chat itself.
  const renamed = await server.request({
    method: "PATCH",
    url: `/sessions/${chat}`,
    token: admin.plain.token,
    payload: { title: "Renamed by its owner" },
  });
  expect([renamed.status, renamed.json.session.title]).toEqual([200, "Renamed by its owner"]);
});
