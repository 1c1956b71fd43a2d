// Hybrid retrieval (docs/documents.md "Hybrid retrieval"): an agent's embedding model has documents embedded as they
// are read, and each turn fuses BM25 with the nearest vectors (reciprocal rank); a model that is down or answers
// nonsense falls back to BM25 and the reply says so once. Over loopback with the scripted backend's /v1/embeddings
// (hashed bag of words with a small thesaurus: "cat" and "Felines", "apartment" and "flat" land together).
import { describe, expect, it, vi } from "vitest";
import { dialectStream, startScriptedBackend, type Scenario } from "../../scripts/scripted-backend/index.ts";
import type { ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { queryWords } from "../../client/wire/search-words.ts";
import { createSession, messagesOf, send, useRunner, waitForEvent, type RunnerServer } from "../runner/helpers.ts";
import { addDocument, lastPassages } from "./helpers.ts";

// A reading worker starts a loader: seconds on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const runner = useRunner();

/** 12 sections of filler holding "a" and "in" (BM25 matches them), then the one that answers, in other words. */
const HOUSE = new TextEncoder().encode(
  [
    ...Array.from(
      { length: 12 },
      (_, i) =>
        `## Part ${i + 1}\n\n` + "A storm came in the night and the town lay dark while nothing happened. ".repeat(35),
    ),
    "## Household rules\n\nFelines are welcome in the flat once the landlord agrees on paper.",
  ].join("\n\n"),
);
const QUESTION = "Can I keep a cat in my apartment?";
const ANSWER_SECTION = "[1] house.md, section 13:";

function start(embeddingUrl?: string): Promise<RunnerServer> {
  const { backend } = runner;
  return runner.start({
    documents: { inline_tokens: 6000 },
    providers: {
      default: { provider: "reference_compatible", model: "scripted", base_url: backend.url },
      embedder: { provider: "reference_compatible", model: "scripted", base_url: embeddingUrl ?? backend.url },
    },
    agents: { default: { provider_id: "default", embedding: { provider_id: "embedder", model: "hash-384" } } },
  });
}

/** The `input` of every embeddings request a backend received, in order. */
function embeddingInputs(backend: ScriptedBackend): string[][] {
  return backend.requests
    .filter((r) => r.path.endsWith("/embeddings"))
    .map((r) => (r.body as { input: string[] }).input);
}

/** Sends the question in a new chat attaching the document; resolves with the chat and the reply. */
async function ask(server: RunnerServer, documentId: string, sessionId?: string) {
  runner.backend.script(dialectStream("openai", { content: "Cats are welcome [1]." }));
  const sid = sessionId ?? (await createSession(server));
  const attachments = sessionId ? [] : [{ type: "document", document_id: documentId }];
  await waitForEvent(server, await send(server, sid, { content: QUESTION, attachments }));
  return { sid, reply: (await messagesOf(server, sid)).at(-1)! };
}

function vectorRows(
  server: RunnerServer,
  table: "document_vectors" | "chat_document_vectors",
  where: string,
  id: string,
) {
  return (
    server.runtime.ctx.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where} = ?`).get(id) as { n: number }
  ).n;
}

describe("hybrid retrieval", () => {
  it("H1 chunks are embedded as read (batched), the question once per turn; a paraphrase's passage is [1] where BM25 alone ranks filler first", async () => {
    const { backend } = runner;
    const server = await start();
    const documentId = await addDocument(server, "house.md", HOUSE);
    const reading = embeddingInputs(backend);
    expect(reading.flat()).toHaveLength(13); // one chunk a section, each embedded once
    expect(reading.every((batch) => batch.length <= 32)).toBe(true);
    const { sid, reply } = await ask(server, documentId);
    expect(embeddingInputs(backend).slice(reading.length)).toEqual([[QUESTION]]);
    expect(lastPassages(backend)).toContain(`${ANSWER_SECTION}\n## Household rules`);
    expect(lastPassages(backend).indexOf(ANSWER_SECTION)).toBeLessThan(lastPassages(backend).indexOf("[2] "));
    expect(reply.metadata?.citations).toMatchObject([{ n: 1, document_id: documentId, page: 13 }]);
    expect(reply.metadata?.retrieval_notice).toBeUndefined();
    // The premise: BM25 alone puts filler first (the answer shares only "in" with the question).
    const bm25 = server.runtime.ctx.documents.store.bestChunks(sid, queryWords(QUESTION), 8);
    expect(bm25[0]!.text).toContain("storm");
  });

  it("H2 an embedding provider that is down: BM25 passages still reach the model, the reply says so once, and hybrid returns with the provider", async () => {
    const { backend } = runner;
    const embedder = await startScriptedBackend();
    const port = Number(new URL(embedder.url).port);
    const server = await start(embedder.url);
    const documentId = await addDocument(server, "house.md", HOUSE);
    await embedder.close();
    const first = await ask(server, documentId);
    expect(lastPassages(backend)).toContain("[1] house.md, section");
    expect(lastPassages(backend)).not.toContain(ANSWER_SECTION);
    expect(first.reply.metadata?.retrieval_notice).toMatch(/words only: .*embedder\/hash-384.*could not be reached/);
    const second = await ask(server, documentId, first.sid);
    expect(lastPassages(backend)).toContain("[1] house.md, section");
    expect(second.reply.metadata?.retrieval_notice).toBeUndefined();
    const back = await startScriptedBackend({ port });
    try {
      const third = await ask(server, documentId, first.sid);
      expect(lastPassages(backend)).toContain(ANSWER_SECTION);
      expect(third.reply.metadata?.retrieval_notice).toBeUndefined();
    } finally {
      await back.close();
    }
  });

  it("H3 a question's vector of the wrong length, NaN, or too large is refused: BM25 and a notice naming why", async () => {
    const { backend } = runner;
    const server = await start();
    const documentId = await addDocument(server, "house.md", HOUSE);
    const vector = (length: number) => ({ data: [{ index: 0, embedding: Array.from({ length }, () => 0.5) }] });
    const hostile: Array<[Scenario, RegExp]> = [
      [{ kind: "json", body: vector(383) }, /383 dimensions where the others have 384/],
      [
        { kind: "raw", contentType: "application/json", body: '{"data":[{"index":0,"embedding":[NaN,1]}]}' },
        /not JSON/,
      ],
      [{ kind: "json", body: vector(5000) }, /5000 dimensions \(at most 4096/],
      [{ kind: "json", body: vector(200_000) }, /larger than \d+ bytes/],
      [{ kind: "json", body: { data: [{ index: 0, embedding: [0, 0, 0] }] } }, /3 dimensions where/],
    ];
    for (const [answer, why] of hostile) {
      backend.scriptEmbeddings(answer);
      const { reply } = await ask(server, documentId);
      expect(lastPassages(backend)).not.toContain(ANSWER_SECTION);
      expect(reply.metadata?.retrieval_notice).toMatch(why);
    }
    expect((await server.request({ method: "GET", url: "/health" })).status).toBe(200);
  });

  it("H4 a document whose embedding is refused while read is ready with no vectors; its chats retrieve by BM25 and say so once", async () => {
    const { backend } = runner;
    const server = await start();
    // Three dimensions: refused by count (a batch of several chunks) or by length (the batches after it).
    backend.scriptEmbeddings({ kind: "json", body: { data: [{ index: 0, embedding: [1, 2, 3] }] } });
    const documentId = await addDocument(server, "house.md", HOUSE);
    expect(vectorRows(server, "document_vectors", "document_id", documentId)).toBe(0);
    const asked = embeddingInputs(backend).length;
    const first = await ask(server, documentId);
    expect(embeddingInputs(backend)).toHaveLength(asked); // no question embedded: nothing to compare it with
    expect(lastPassages(backend)).toContain("[1] house.md, section");
    expect(first.reply.metadata?.retrieval_notice).toMatch(/not embedded/);
    const second = await ask(server, documentId, first.sid);
    expect(second.reply.metadata?.retrieval_notice).toBeUndefined();
  });

  it("H5 a document's vectors go with it, a chat's copy with the chat", async () => {
    const server = await start();
    const documentId = await addDocument(server, "house.md", HOUSE);
    const { sid } = await ask(server, documentId);
    expect(vectorRows(server, "document_vectors", "document_id", documentId)).toBe(13);
    expect(vectorRows(server, "chat_document_vectors", "session_id", sid)).toBe(13);
    expect((await server.request({ method: "DELETE", url: `/documents/${documentId}` })).status).toBe(204);
    expect(vectorRows(server, "document_vectors", "document_id", documentId)).toBe(0);
    // The chat keeps its copy, vectors included: its next turn is still hybrid.
    await ask(server, documentId, sid);
    expect(lastPassages(runner.backend)).toContain(ANSWER_SECTION);
    expect((await server.request({ method: "DELETE", url: `/sessions/${sid}` })).status).toBe(204);
    expect(vectorRows(server, "chat_document_vectors", "session_id", sid)).toBe(0);
  });
});
