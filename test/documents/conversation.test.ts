// Documents in the conversation (docs/documents.md "Into the conversation"): attached by a message, every turn draws on
// every document attached so far as numbered passages (best match first), and the reply's [n] become citations.
import { describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { createSession, messagesOf, send, waitForEvent, useRunner } from "../runner/helpers.ts";
import { addDocument, lastPassages } from "./helpers.ts";
import { pdfWith } from "./files.ts";

// A reading worker starts a loader and pdf.js: seconds on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const runner = useRunner({ documents: { inline_tokens: 6000 } });

const LEASE = [
  "Lease agreement between Ana and Ben.",
  "Clause 7: the tenant pays the rent on the first day of each month.",
  "Clause 9: pets are allowed with written consent.",
];

describe("documents in a chat", () => {
  it("D10 the passages reach the model numbered, best match first; [n] become citations and [9] of 3 is dropped", async () => {
    const { server, backend } = runner;
    const documentId = await addDocument(server, "lease.pdf", await pdfWith(LEASE));
    backend.script(dialectStream("openai", { content: "Rent is due on the first [1], see also [9]." }));
    const sid = await createSession(server);
    const rid = await send(server, sid, {
      content: "When is the rent due?",
      attachments: [{ type: "document", document_id: documentId }],
    });
    await waitForEvent(server, rid);
    const passages = lastPassages(runner.backend);
    expect(passages.indexOf("[1] lease.pdf, page 2:")).toBeGreaterThan(0);
    expect(passages).toContain("[2] lease.pdf, page");
    expect(passages).toContain("[3] lease.pdf, page");
    const reply = (await messagesOf(server, sid)).at(-1)!;
    expect(reply.metadata?.citations).toEqual([
      { n: 1, document_id: documentId, name: "lease.pdf", page: 2, quote: LEASE[1] },
    ]);
    const page = await server.request({ method: "GET", url: `/sessions/${sid}/documents/${documentId}/text?page=2` });
    expect(page.json).toEqual({ page: 2, text: LEASE[1] });
  });

  it("D11 later turns draw on the documents attached before; the document's deletion leaves the chat's copy", async () => {
    const { server, backend } = runner;
    const documentId = await addDocument(server, "lease.pdf", await pdfWith(LEASE));
    const sid = await createSession(server);
    backend.script(dialectStream("openai", { content: "Noted." }), dialectStream("openai", { content: "Yes [1]." }));
    await waitForEvent(
      server,
      await send(server, sid, { content: "Read this", attachments: [{ type: "document", document_id: documentId }] }),
    );
    expect((await server.request({ method: "DELETE", url: `/documents/${documentId}` })).status).toBe(204);
    await waitForEvent(server, await send(server, sid, { content: "Are pets allowed?" }));
    const passages = lastPassages(runner.backend);
    expect(passages.indexOf("[1] lease.pdf, page 3:")).toBeGreaterThan(0);
    expect((await messagesOf(server, sid)).at(-1)!.metadata?.citations).toMatchObject([{ n: 1, page: 3 }]);
  });

  it("D14 an exported chat carries its documents' text: imported elsewhere, its citations open and its turns draw on them", async () => {
    const { server, backend } = runner;
    const documentId = await addDocument(server, "lease.pdf", await pdfWith(LEASE));
    const sid = await createSession(server);
    backend.script(dialectStream("openai", { content: "Rent is due on the first [1]." }));
    await waitForEvent(
      server,
      await send(server, sid, {
        content: "When is the rent due?",
        attachments: [{ type: "document", document_id: documentId }],
      }),
    );
    const citations = (await messagesOf(server, sid)).at(-1)!.metadata?.citations;
    expect(citations).toMatchObject([{ n: 1, document_id: documentId, page: 2 }]);
    expect((await server.request({ method: "DELETE", url: `/documents/${documentId}` })).status).toBe(204);
    const exported = await server.request({ method: "GET", url: `/sessions/${sid}/export?format=json` });
    expect(exported.json[0].documents).toEqual([
      {
        document_id: documentId,
        name: "lease.pdf",
        media_type: "application/pdf",
        pages: LEASE.map((text, i) => ({ page: i + 1, text })),
      },
    ]);
    expect((await server.request({ method: "DELETE", url: `/sessions/${sid}` })).status).toBe(204);
    const twice = JSON.parse(exported.text);
    twice[0].documents.push(twice[0].documents[0]);
    const refused = await server.request({
      method: "POST",
      url: "/import",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify(twice),
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/document_id is given twice/);

    const imported = await server.request({
      method: "POST",
      url: "/import",
      headers: { "content-type": "application/json" },
      payload: exported.text,
    });
    expect(imported.json).toMatchObject({ imported: 1 });
    const copy = imported.json.chats[0].session_id as string;
    expect((await messagesOf(server, copy)).at(-1)!.metadata?.citations).toEqual(citations);
    const page = await server.request({ method: "GET", url: `/sessions/${copy}/documents/${documentId}/text?page=2` });
    expect(page.json).toEqual({ page: 2, text: LEASE[1] });
    backend.script(dialectStream("openai", { content: "With consent [1]." }));
    await waitForEvent(server, await send(server, copy, { content: "Are pets allowed?" }));
    const passages = lastPassages(runner.backend);
    expect(passages.indexOf("[1] lease.pdf, page 3:")).toBeGreaterThan(0);
  });

  it("D12 a document not in the library, or not read yet, is refused with the attachment's path; nothing is sent", async () => {
    const { server } = runner;
    const sid = await createSession(server);
    const answer = await server.request({
      method: "POST",
      url: `/sessions/${sid}/send`,
      payload: { content: "hi", attachments: [{ type: "document", document_id: "doc_nope" }] },
    });
    expect(answer.status).toBe(404);
    expect(answer.json.error).toMatchObject({
      code: "document_not_found",
      message: expect.stringContaining("body.attachments.0"),
    });
    expect(await messagesOf(server, sid)).toEqual([]);
  });

  it("D13 a chat larger than inline_tokens gets its best chunks only, the matching page first", async () => {
    const { server, backend } = runner;
    const filler = (n: number) => `Filler page ${n}. ` + "The weather was mild and nothing happened. ".repeat(120);
    const pages = [...Array.from({ length: 12 }, (_, i) => filler(i + 1)), "The secret ingredient is saffron."];
    const documentId = await addDocument(
      server,
      "book.pdf",
      await pdfWith(pages.map((p) => p.match(/.{1,90}/g)!.join("\n"))),
    );
    backend.script(dialectStream("openai", { content: "Saffron [1]." }));
    const sid = await createSession(server);
    await waitForEvent(
      server,
      await send(server, sid, {
        content: "What is the secret ingredient?",
        attachments: [{ type: "document", document_id: documentId }],
      }),
    );
    const passages = lastPassages(runner.backend);
    expect(passages.indexOf("[1] book.pdf, page 13:")).toBeGreaterThan(0);
    expect(passages.match(/^\[\d+\] /gm)!.length).toBeLessThanOrEqual(8);
  });
});
