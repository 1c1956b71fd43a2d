// A chat's audience holds more than its owner (docs/people.md "Access", invariants N19-N20): with share rows in place
// (the sharing routes come later; here the rows are written as those routes will), a `read` and a `write` share get
// exactly what the access table gives, and pinned/archived are each person's own.
import { expect, it } from "vitest";
import { chatOf, startHousehold, type Household } from "./support.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

function share(h: Household, sessionId: string, personId: string, access: "read" | "write"): void {
  h.server.runtime.ctx.db
    .prepare("INSERT INTO session_shares (session_id, person_id, access, created_at) VALUES (?, ?, ?, ?)")
    .run(sessionId, personId, access, Date.now());
}

it("N19: a read share reads, exports and copies; a write share also sends; only the owner manages (403 share_access_denied)", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult, child } = h;
  const chat = await chatOf(server, admin.plain.token, "SHARED-TRIP-PLAN");
  share(h, chat, adult.id, "write");
  share(h, chat, child.id, "read");
  const call = (token: string, method: "GET" | "POST" | "PATCH" | "DELETE", path: string, payload?: object) =>
    server.request({ method, url: `/sessions/${chat}${path}`, token, ...(payload ? { payload } : {}) });

  for (const token of [adult.e2e.token, child.e2e.token]) {
    const read = await call(token, "GET", "");
    expect(read.status).toBe(200);
    expect(read.json.session).toMatchObject({ owner: admin.id, owner_name: "Owner" });
    // Shares are listed in the order they were made; both rows here were made in the same millisecond.
    expect(read.json.session.shares).toHaveLength(2);
    expect(read.json.session.shares).toEqual(
      expect.arrayContaining([
        { person_id: adult.id, access: "write" },
        { person_id: child.id, access: "read" },
      ]),
    );
    expect((await call(token, "GET", "/export?format=markdown")).status).toBe(200);
    const copy = await call(token, "POST", "/fork", {});
    expect(copy.status).toBe(201);
    expect(copy.json.session.owner).not.toBe(admin.id);
    for (const [method, path, body] of [
      ["PATCH", "", { title: "mine" }],
      ["DELETE", "", undefined],
      ["PATCH", "/messages/0", { content: "changed" }],
      ["DELETE", "/messages", { indices: [0] }],
      ["POST", "/messages", { role: "user", content: "x" }],
    ] as const) {
      const refused = await call(token, method, path, body);
      expect([refused.status, refused.json.error.code], `${method} ${path}`).toEqual([403, "share_access_denied"]);
    }
  }
  const readerSend = await call(child.e2e.token, "POST", "/send", { content: "hi" });
  expect([readerSend.status, readerSend.json.error.code]).toEqual([403, "share_access_denied"]);
  // The writer may send (the agent is the default one, which Ana may use).
  const writerSend = await call(adult.e2e.token, "POST", "/send", { content: "hi" });
  expect(writerSend.status).toBe(202);
  await server.runtime.ctx.runner.stopSession(chat);
  // Search and the list reach the shared chat for both.
  for (const token of [adult.plain.token, child.plain.token]) {
    const search = await server.request({ method: "GET", url: "/search?q=TRIP", token });
    expect(search.json.results.map((r: { session_id: string }) => r.session_id)).toContain(chat);
  }
});

it("N20: pinning or archiving a shared chat is the person's own; the owner's stays", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult } = h;
  const chat = await chatOf(server, admin.plain.token, "PINNED-BY-ANA");
  share(h, chat, adult.id, "read");
  const pinned = await server.request({
    method: "PATCH",
    url: `/sessions/${chat}`,
    token: adult.e2e.token,
    payload: { pinned: true, archived: true },
  });
  expect(pinned.status).toBe(200);
  expect(pinned.json.session).toMatchObject({ pinned: true, archived: true });
  const owners = await server.request({ method: "GET", url: `/sessions/${chat}`, token: admin.e2e.token });
  expect(owners.json.session.pinned ?? false).toBe(false);
  expect(owners.json.session.archived ?? false).toBe(false);
});
