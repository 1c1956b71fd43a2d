// The sharing routes (docs/people.md "Sharing", N23-N26) over a real server and SQLite file: the owner shares a chat
// with a person (read or write) and takes it back; the person's devices hear `session_access_granted` and
// `session_access_revoked` and see the chat exactly while shared; nobody else may share; the bad inputs answer
// their registry codes; a device's send in a shared chat names its sender.
import { expect, it } from "vitest";
import { MAX_SHARES } from "../../client/wire/routes/shares.ts";
import { chatOf, startHousehold, type Household, shareChat, unshareChat, sendAs } from "./support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

async function eventsOf(h: Household, token: string): Promise<Array<{ type: string; session_id?: string }>> {
  const answer = await h.server.request({ method: "GET", url: "/events?since_id=0", token });
  expect(answer.status).toBe(200);
  return answer.json.events;
}

it("N23: sharing tells the person and shows them the chat; unsharing tells them and hides it again", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult, child } = h;
  const chat = await chatOf(server, admin.e2e.token, "TRIP-PLAN");
  const shared = await shareChat(server, admin.e2e.token, chat, adult.id, "read");
  expect(shared.status).toBe(200);
  expect(shared.json.session.shares).toEqual([{ person_id: adult.id, access: "read" }]);
  const granted = (await eventsOf(h, adult.plain.token)).filter((e) => e.type === "session_access_granted");
  expect(granted).toHaveLength(1);
  expect(granted[0]).toMatchObject({ session_id: chat, session: { id: chat, owner_name: "Owner" } });
  const list = await server.request({ method: "GET", url: "/sessions", token: adult.e2e.token });
  expect(list.json.sessions.map((s: { id: string }) => s.id)).toContain(chat);
  // The child was told nothing and still cannot see it.
  expect((await eventsOf(h, child.plain.token)).some((e) => e.session_id === chat)).toBe(false);

  // Sharing again changes the access without a second "granted".
  await shareChat(server, admin.e2e.token, chat, adult.id, "write");
  expect((await eventsOf(h, adult.plain.token)).filter((e) => e.type === "session_access_granted")).toHaveLength(1);

  const unshared = await unshareChat(server, admin.e2e.token, chat, adult.id);
  expect(unshared.status).toBe(204);
  const events = await eventsOf(h, adult.plain.token);
  expect(events.at(-1)).toMatchObject({ type: "session_access_revoked", session_id: chat });
  const gone = await server.request({ method: "GET", url: `/sessions/${chat}`, token: adult.e2e.token });
  expect([gone.status, gone.json.error.code]).toEqual([404, "session_not_found"]);
  const again = await unshareChat(server, admin.e2e.token, chat, adult.id);
  expect([again.status, again.json.error.code]).toEqual([404, "person_not_found"]);
});

it("N24: only the owner shares (403 share_access_denied for a share holder, 404 for anyone else)", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult, child } = h;
  const chat = await chatOf(server, admin.e2e.token, "OWNERS-ONLY");
  await shareChat(server, admin.e2e.token, chat, adult.id, "write");
  const byHolder = await shareChat(server, adult.e2e.token, chat, child.id, "read");
  expect([byHolder.status, byHolder.json.error.code]).toEqual([403, "share_access_denied"]);
  const unshareByHolder = await unshareChat(server, adult.e2e.token, chat, adult.id);
  expect([unshareByHolder.status, unshareByHolder.json.error.code]).toEqual([403, "share_access_denied"]);
  const byStranger = await shareChat(server, child.e2e.token, chat, child.id, "read");
  expect([byStranger.status, byStranger.json.error.code]).toEqual([404, "session_not_found"]);
});

it("N25: the owner, unknown people, bad access and a 21st share are refused with their codes", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult } = h;
  const chat = await chatOf(server, admin.e2e.token, "LIMITS");
  const post = (payload: unknown) =>
    server.request({
      method: "POST",
      url: `/sessions/${chat}/shares`,
      token: admin.e2e.token,
      payload: payload as object,
    });
  const self = await post({ person_id: admin.id, access: "read" });
  expect([self.status, self.json.error.code]).toEqual([400, "cannot_share_with_owner"]);
  const unknown = await post({ person_id: "per_nobody", access: "read" });
  expect([unknown.status, unknown.json.error.code]).toEqual([404, "person_not_found"]);
  for (const bad of [
    { person_id: adult.id, access: "admin" },
    { person_id: adult.id },
    { person_id: "x".repeat(500), access: "read" },
    [],
  ]) {
    const refused = await post(bad);
    expect([refused.status, refused.json.error.code], JSON.stringify(bad).slice(0, 80)).toEqual([400, "invalid_input"]);
  }
  for (let i = 0; i < MAX_SHARES; i += 1) {
    const person = (await server.request({ method: "POST", url: "/people", payload: { name: `P${i}` } })).json.person;
    expect((await post({ person_id: person.id, access: "read" })).status).toBe(200);
  }
  const tooMany = await post({ person_id: adult.id, access: "read" });
  expect([tooMany.status, tooMany.json.error.code]).toEqual([409, "too_many_shares"]);
});

it("N26: a device's send carries metadata.sender, so a shared chat's transcript can say who wrote what", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult } = h;
  const chat = await chatOf(server, admin.e2e.token, "WHO-WROTE");
  await shareChat(server, admin.e2e.token, chat, adult.id, "write");
  const sent = await sendAs(server, adult.e2e.token, chat, "from Ana");
  expect(sent.status).toBe(202);
  await server.runtime.ctx.runner.stopSession(chat);
  const messages = server.runtime.ctx.sessions.get(chat).messages;
  expect(messages.find((m) => m.content === "from Ana")?.metadata?.sender).toEqual({
    person_id: adult.id,
    name: "Ana",
  });
});
