// The original file of a chat's document (docs/documents.md "The original file"): served in parts to whoever may read
// the chat, while the library keeps it and its person may still read the chat; every other case is the chat routes'
// 404, and hostile part numbers are 400.
import { randomBytes } from "node:crypto";
import { PDFDocument } from "pdf-lib";
import { afterEach, expect, it, vi } from "vitest";
import { DOCUMENT_FILE_PART_BYTES } from "../../client/wire/routes/documents.ts";
import type { TestServer } from "../support/server.ts";
import { chatOf, startHousehold, type Household } from "../people/support.ts";
import { pdfWith } from "./files.ts";
import { addDocument } from "./helpers.ts";

// A reading worker starts a loader and pdf.js: seconds on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

let h: Household | undefined;
afterEach(async () => {
  await h?.server.close();
  h = undefined;
});

/** A PDF of about `size` bytes: three pages of text and an attached file of random bytes. */
async function pdfOfSize(size: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(await pdfWith(["Harbour rules", "Ferries leave every hour.", "Tides"]));
  await pdf.attach(randomBytes(size), "padding.bin", { mimeType: "application/octet-stream" });
  return pdf.save();
}

async function attach(server: TestServer, token: string, chat: string, documentId: string): Promise<void> {
  const send = await server.request({
    method: "POST",
    url: `/sessions/${chat}/send`,
    token,
    payload: { content: "read it", attachments: [{ type: "document", document_id: documentId }] },
  });
  expect(send.status).toBe(202);
}

async function part(server: TestServer, token: string, url: string) {
  const response = await server.runtime.app.inject({
    method: "GET",
    url,
    headers: { authorization: `Bearer ${token}` },
  });
  const json = response.headers["content-type"]?.toString().startsWith("application/json")
    ? response.json()
    : undefined;
  return { status: response.statusCode, type: response.headers["content-type"], bytes: response.rawPayload, json };
}

function share(h: Household, sessionId: string, personId: string, access: "read" | "write"): void {
  h.server.runtime.ctx.db
    .prepare("INSERT INTO session_shares (session_id, person_id, access, created_at) VALUES (?, ?, ?, ?)")
    .run(sessionId, personId, access, Date.now());
}

it("F1 the file comes in parts that add up to it; a part past the end is empty; bad part numbers are 400", async () => {
  h = await startHousehold();
  const { server, adult } = h;
  const pdf = await pdfOfSize(DOCUMENT_FILE_PART_BYTES + 100_000);
  const doc = await addDocument(server, "harbour.pdf", pdf, { token: adult.e2e.token });
  const chat = await chatOf(server, adult.e2e.token, "HARBOUR");
  await attach(server, adult.e2e.token, chat, doc);
  const url = `/sessions/${chat}/documents/${doc}/file`;

  const first = await part(server, adult.plain.token, url);
  const second = await part(server, adult.plain.token, `${url}?part=1`);
  expect([first.status, first.type, first.bytes.length]).toEqual([200, "application/pdf", DOCUMENT_FILE_PART_BYTES]);
  expect(second.status).toBe(200);
  expect(second.bytes.length).toBeLessThan(DOCUMENT_FILE_PART_BYTES);
  expect(Buffer.concat([first.bytes, second.bytes]).equals(Buffer.from(pdf))).toBe(true);
  for (const past of [2, 1_000_000]) {
    const empty = await part(server, adult.plain.token, `${url}?part=${past}`);
    expect([empty.status, empty.bytes.length]).toEqual([200, 0]);
  }
  for (const bad of ["-1", "1.5", "abc", "1000001", "99999999999999999999", "1&part=2"]) {
    const refused = await part(server, adult.plain.token, `${url}?part=${bad}`);
    expect([refused.status, refused.json?.error.code], bad).toEqual([400, "invalid_input"]);
  }
  const unknown = await part(server, adult.plain.token, `/sessions/${chat}/documents/doc_nothing/file`);
  expect([unknown.status, unknown.json?.error.code]).toEqual([404, "document_not_found"]);
});

it("F2 whoever may read the chat gets the file; others get session_not_found; once the library's document is deleted, document_not_found and the text stays", async () => {
  h = await startHousehold();
  const { server, admin, adult, child } = h;
  const doc = await addDocument(server, "plan.pdf", await pdfWith(["TRIP-PLAN-TEXT"]), { token: adult.e2e.token });
  const chat = await chatOf(server, adult.e2e.token, "TRIP");
  await attach(server, adult.e2e.token, chat, doc);
  const url = `/sessions/${chat}/documents/${doc}/file`;

  for (const token of [child.e2e.token, admin.plain.token]) {
    const refused = await part(server, token, url);
    expect([refused.status, refused.json?.error.code]).toEqual([404, "session_not_found"]);
  }
  share(h, chat, child.id, "read");
  const shared = await part(server, child.e2e.token, url);
  expect([shared.status, shared.bytes.subarray(0, 5).toString()]).toEqual([200, "%PDF-"]);
  // The library stays the adult's: its own route is still not the child's.
  const library = await server.request({ method: "GET", url: `/documents/${doc}`, token: child.e2e.token });
  expect(library.status).toBe(404);

  const removed = await server.request({ method: "DELETE", url: `/documents/${doc}`, token: adult.e2e.token });
  expect(removed.status).toBe(204);
  for (const token of [adult.e2e.token, child.e2e.token]) {
    const gone = await part(server, token, url);
    expect([gone.status, gone.json?.error.code]).toEqual([404, "document_not_found"]);
    const text = await server.request({ method: "GET", url: `/sessions/${chat}/documents/${doc}/text`, token });
    expect([text.status, text.json.text]).toEqual([200, expect.stringContaining("TRIP-PLAN-TEXT")]);
  }
});

it("F3 a document put into someone else's chat is served only while its person may still read that chat", async () => {
  h = await startHousehold();
  const { server, adult, child } = h;
  const doc = await addDocument(server, "map.pdf", await pdfWith(["MAP-TEXT"]), { token: adult.e2e.token });
  const chat = await chatOf(server, child.e2e.token, "KID-TRIP", "kids");
  share(h, chat, adult.id, "write");
  await attach(server, adult.e2e.token, chat, doc);
  const url = `/sessions/${chat}/documents/${doc}/file`;
  expect((await part(server, child.e2e.token, url)).status).toBe(200);

  server.runtime.ctx.db.prepare("DELETE FROM session_shares WHERE session_id = ?").run(chat);
  const kept = await part(server, child.e2e.token, url);
  expect([kept.status, kept.json?.error.code]).toEqual([404, "document_not_found"]);
  const text = await server.request({
    method: "GET",
    url: `/sessions/${chat}/documents/${doc}/text`,
    token: child.e2e.token,
  });
  expect(text.status).toBe(200);
});
