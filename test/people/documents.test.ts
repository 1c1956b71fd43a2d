// Documents with people (docs/people.md invariant N22): a library is its person's own, and a chat's copy of a document
// is read by whoever may read the chat, through the one chat guard.
import { expect, it, vi } from "vitest";
import { addDocument } from "../documents/helpers.ts";
import { chatOf, startHousehold, shareForReading } from "./support.ts";
import { useClosing } from "../support/use-closing.ts";

// A reading worker starts a loader: seconds on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const closing = useClosing();

it("N22: another person's library document is 404 document_not_found everywhere, and its progress is not theirs", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult, child } = h;
  const doc = await addDocument(server, "diary.txt", "ADULT-DIARY-TEXT", {
    token: adult.e2e.token,
    type: "text/plain",
  });
  expect((await server.request({ method: "GET", url: `/documents/${doc}`, token: adult.plain.token })).status).toBe(
    200,
  );

  for (const token of [child.e2e.token, admin.plain.token]) {
    for (const url of [`/documents/${doc}`, `/documents/${doc}/text?page=1`]) {
      const refused = await server.request({ method: "GET", url, token });
      expect([refused.status, refused.json.error.code], url).toEqual([404, "document_not_found"]);
    }
    const list = await server.request({ method: "GET", url: "/documents", token });
    expect(list.json.documents).toEqual([]);
    const removed = await server.request({ method: "DELETE", url: `/documents/${doc}`, token });
    expect([removed.status, removed.json.error.code]).toEqual([404, "document_not_found"]);
    const feed = await server.request({ method: "GET", url: "/events?since_id=0&limit=1000", token });
    expect(feed.text).not.toContain(doc);
  }
  const own = await server.request({ method: "GET", url: "/events?since_id=0&limit=1000", token: adult.e2e.token });
  expect(own.text).toContain('"document_updated"');
  expect(own.text).toContain(doc);

  // Nor may it be attached to the other person's own chat.
  const childChat = await chatOf(server, child.e2e.token, "KID-CHAT", "kids");
  const send = await server.request({
    method: "POST",
    url: `/sessions/${childChat}/send`,
    token: child.e2e.token,
    payload: { content: "read it", attachments: [{ type: "document", document_id: doc }] },
  });
  expect([send.status, send.json.error.code]).toEqual([404, "document_not_found"]);
  expect(server.runtime.ctx.documents.chatDocuments(childChat)).toEqual([]);
});

it("N22: a chat's copy of a document is read by whoever may read the chat, and by nobody else", async () => {
  const h = closing.own(await startHousehold());
  const { server, admin, adult, child } = h;
  const doc = await addDocument(server, "plan.txt", "TRIP-PLAN-TEXT", { token: adult.e2e.token, type: "text/plain" });
  const chat = await chatOf(server, adult.e2e.token, "TRIP");
  const send = await server.request({
    method: "POST",
    url: `/sessions/${chat}/send`,
    token: adult.e2e.token,
    payload: { content: "read it", attachments: [{ type: "document", document_id: doc }] },
  });
  expect(send.status).toBe(202);
  const copy = `/sessions/${chat}/documents/${doc}/text?page=1`;
  expect((await server.request({ method: "GET", url: copy, token: adult.plain.token })).json.text).toContain(
    "TRIP-PLAN-TEXT",
  );

  const before = await server.request({ method: "GET", url: copy, token: child.e2e.token });
  expect([before.status, before.json.error.code]).toEqual([404, "session_not_found"]);
  shareForReading(h, chat, child.id);
  const shared = await server.request({ method: "GET", url: copy, token: child.e2e.token });
  expect([shared.status, shared.json.text]).toEqual([200, expect.stringContaining("TRIP-PLAN-TEXT")]);
  // The library stays the adult's: the share opens the chat's copy only.
  expect((await server.request({ method: "GET", url: `/documents/${doc}`, token: child.e2e.token })).status).toBe(404);

  const admins = await server.request({ method: "GET", url: copy, token: admin.plain.token });
  expect([admins.status, admins.json.error.code]).toEqual([404, "session_not_found"]);
});
