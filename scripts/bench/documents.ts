// Documents benchmark (docs/documents.md, docs/benchmarks.md "Documents"). Three JSON lines:
//
// `documents-read`: a text PDF of --pages pages (200), written by pdf-lib, sent to a server in its own process;
// the time from POST /documents to the document's status `ready` (every page read off the main thread and stored),
// beside the baseline measured in this run: pdf.js's own text extraction of the same file alone, in this process.
//
// `documents-health`: a PDF of --big pages (500) read while another connection asks GET /health over and over: the
// p99 and the worst during the reading, beside the p99 on the idle server just before.
//
// `documents-retrieval`: --chunks chunks (100,000) of generated prose in one chat's index, each with a vector of
// --dimensions (384); the p99 of the chat's best chunks for a question by BM25, and hybrid (BM25 fused with the
// nearest vectors, the question's vector given), beside the baselines of FTS5 finding the same words unranked and of
// the exact scan in JavaScript the vector side did before its WebAssembly SIMD kernel (the same vectors in one
// Float32Array, a dot product each, the best 50 kept).
// Usage: node --import tsx scripts/bench/documents.ts [--pages 200] [--big 500] [--chunks 100000] [--dimensions 384]
//   [--only read,health,retrieval]
import { loadavg } from "node:os";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { Client } from "undici";
import { z } from "zod";
import { parseConfig } from "../../server/config/load.ts";
import type { Statement } from "better-sqlite3";
import type { Db } from "../../server/db/database.ts";
import type { DocumentStore } from "../../server/documents/store.ts";
import { rankedChunks } from "../../server/documents/retrieval.ts";
import { dotAt, fromBlob, toBlob, unitVector } from "../../server/documents/vectors.ts";
import { scriptedEmbedding } from "../scripted-backend/embeddings.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { benchOptions } from "./options.ts";
import { withProbedServer } from "./probed/server.ts";
import { median, percentile } from "./stats.ts";

// `only`: which parts run, comma-separated: read, health, retrieval.
const options = benchOptions({ pages: 200, big: 500, chunks: 100000, dimensions: 384, only: "read,health,retrieval" });
const TOKEN = "bench-token";
const round = (value: number) => Math.round(value * 10) / 10;
/** The embedding model the retrieval benchmark's vectors are kept under. */
const MODEL = "bench/hash-384";
const load = () => Math.round(loadavg()[0]! * 100) / 100;

/** Words of a made-up prose, drawn with a skew (a few very common, most rare), as real text's are. */
const WORDS = Array.from({ length: 50_000 }, (_, i) => `w${i.toString(36)}${"aeiou"[i % 5]}${"rstln"[(i * 7) % 5]}`);
function prose(seed: number, words: number): string {
  let x = seed * 2654435761;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    const u = x / 2 ** 32;
    out.push(WORDS[Math.floor(WORDS.length * u ** 3)]!);
  }
  return out.join(" ");
}

/** A PDF of `count` pages, each 40 lines of prose (about 2,400 characters, a page of a report). */
async function pdfOfPages(count: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < count; p++) {
    const page = pdf.addPage([595, 842]);
    for (let line = 0; line < 40; line++)
      page.drawText(prose(p * 100 + line, 9), { x: 40, y: 800 - line * 18, size: 10, font });
  }
  return pdf.save();
}

/** pdf.js's text extraction of `data`, every page, as the server's reader does it: the floor of any reading. */
async function pdfjsAlone(data: Uint8Array): Promise<number> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const start = performance.now();
  const pdf = await pdfjs.getDocument({
    data: data.slice(),
    isEvalSupported: false,
    disableFontFace: true,
    verbosity: 0,
  }).promise;
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    await page.getTextContent();
    page.cleanup();
  }
  await pdf.destroy();
  return performance.now() - start;
}

async function call(client: Client, method: "GET" | "POST", path: string, body?: Uint8Array): Promise<unknown> {
  const res = await client.request({
    method,
    path,
    headers: { "authorization": `Bearer ${TOKEN}`, "content-type": "application/pdf" },
    ...(body ? { body } : {}),
  });
  const json = (await res.body.json()) as unknown;
  if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${JSON.stringify(json)}`);
  return json;
}

const documentShape = z.object({ document: z.object({ id: z.string(), status: z.string(), pages: z.number() }) });

/** Sends the PDF and waits until it is ready: the milliseconds from the send to `ready`. */
async function readOnServer(client: Client, name: string, pdf: Uint8Array): Promise<number> {
  const start = performance.now();
  const { document } = documentShape.parse(await call(client, "POST", `/documents?name=${name}`, pdf));
  for (let status = document.status; status === "reading";) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    status = documentShape.parse(await call(client, "GET", `/documents/${document.id}`)).document.status;
  }
  return performance.now() - start;
}

/** Asks /health over and over on its own connection until `done`; each answer's latency in ms. */
async function probe(client: Client, done: () => boolean): Promise<number[]> {
  const samples: number[] = [];
  while (!done()) {
    const start = performance.now();
    await call(client, "GET", "/health");
    samples.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return samples;
}

async function reading(pages: number): Promise<void> {
  const pdf = await pdfOfPages(pages);
  await pdfjsAlone(pdf); // loads pdf.js once, as the server's worker has by its second document
  const baselines = [await pdfjsAlone(pdf), await pdfjsAlone(pdf), await pdfjsAlone(pdf)];
  const times = await withProbedServer(TOKEN, async (url) => {
    const client = new Client(url, { bodyTimeout: 0, headersTimeout: 0 });
    try {
      return [
        await readOnServer(client, "a.pdf", pdf),
        await readOnServer(client, "b.pdf", pdf),
        await readOnServer(client, "c.pdf", pdf),
      ];
    } finally {
      await client.close();
    }
  });
  const readyMs = median(times);
  const baselineMs = median(baselines);
  console.log(
    JSON.stringify({
      bench: "documents-read",
      pages,
      pdf_bytes: pdf.length,
      ready_ms: Math.round(readyMs),
      baseline_pdfjs_alone_ms: Math.round(baselineMs),
      ratio: round(readyMs / baselineMs),
      load_average: load(),
    }),
  );
}

async function healthDuringReading(pages: number): Promise<void> {
  const pdf = await pdfOfPages(pages);
  await withProbedServer(TOKEN, async (url) => {
    const reader = new Client(url, { bodyTimeout: 0, headersTimeout: 0 });
    const health = new Client(url, { pipelining: 1 });
    try {
      const idleUntil = performance.now() + 1000;
      const idle = await probe(health, () => performance.now() > idleUntil);
      let reading = true;
      const during = probe(health, () => !reading);
      const readyMs = await readOnServer(reader, "big.pdf", pdf);
      reading = false;
      const samples = await during;
      console.log(
        JSON.stringify({
          bench: "documents-health",
          pages,
          ready_ms: Math.round(readyMs),
          health_p99_ms: round(percentile(samples, 99)),
          health_max_ms: round(Math.max(...samples)),
          health_samples: samples.length,
          baseline_idle_health_p99_ms: round(percentile(idle, 99)),
          load_average: load(),
        }),
      );
    } finally {
      await Promise.all([reader.close(), health.close()]);
    }
  });
}

async function retrieval(chunks: number, dimensions: number): Promise<void> {
  const dir = tempDir("bench-documents-");
  const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: TOKEN });
  try {
    const { db, sessions, documents } = runtime.ctx;
    const sessionId = sessions.create().id;
    fillChat(db, sessionId, chunks, dimensions);
    const unrankedQuery = db.prepare("SELECT rowid FROM chat_document_fts WHERE chat_document_fts MATCH ? LIMIT 8");
    // The first hybrid turn of a chat loads its vectors into memory: measured on its own, then every turn is warm.
    const firstVector = { model: MODEL, vector: unitVector(scriptedEmbedding("first", dimensions), dimensions) };
    const start = performance.now();
    rankedChunks(documents.store, sessionId, ["first"], firstVector);
    const firstHybridMs = performance.now() - start;
    // Five runs of 100 questions each over the same chat; each figure is the median of the runs' own.
    const jsMatrix = vectorsInJavaScript(db, sessionId, dimensions);
    const runs = Array.from({ length: RUNS }, (_, run) =>
      measureQuestions(documents.store, sessionId, unrankedQuery, dimensions, jsMatrix, run),
    );
    const med = (pick: (run: QuestionRun) => number[], p: number) =>
      round(median(runs.map((r) => percentile(pick(r), p))));
    console.log(
      JSON.stringify({
        bench: "documents-retrieval",
        chunks,
        dimensions,
        runs: RUNS,
        questions_per_run: QUESTIONS,
        bm25_p50_ms: med((r) => r.bm25, 50),
        bm25_p99_ms: med((r) => r.bm25, 99),
        hybrid_p50_ms: med((r) => r.hybrid, 50),
        hybrid_p99_ms: med((r) => r.hybrid, 99),
        hybrid_first_turn_ms: round(firstHybridMs),
        baseline_unranked_p99_ms: med((r) => r.unranked, 99),
        baseline_js_scan_p50_ms: med((r) => r.jsScan, 50),
        baseline_js_scan_p99_ms: med((r) => r.jsScan, 99),
        load_average: load(),
      }),
    );
  } finally {
    await runtime.close();
  }
}

const RUNS = 5;
const QUESTIONS = 100;

interface QuestionRun {
  bm25: number[];
  hybrid: number[];
  unranked: number[];
  jsScan: number[];
}

/** QUESTIONS questions asked of the chat: BM25 alone, FTS5 unranked and the JavaScript scan (baselines), and hybrid. */
function measureQuestions(
  store: DocumentStore,
  sessionId: string,
  unrankedQuery: Statement,
  dimensions: number,
  jsMatrix: Float32Array,
  run: number,
): QuestionRun {
  const times: QuestionRun = { bm25: [], hybrid: [], unranked: [], jsScan: [] };
  const timed = (into: number[], work: () => unknown) => {
    const start = performance.now();
    work();
    into.push(performance.now() - start);
  };
  for (let q = 0; q < QUESTIONS; q++) {
    const question = prose(10_000_000 + run * QUESTIONS + q, 4);
    const words = question.split(" ");
    timed(times.bm25, () => store.bestChunks(sessionId, words, 8));
    timed(times.unranked, () => unrankedQuery.all(words.map((word) => `"${word}"`).join(" OR ")));
    // What a turn does once its question's vector is back from the provider (that call is the provider's time).
    const vector = unitVector(scriptedEmbedding(question, dimensions), dimensions);
    timed(times.hybrid, () => rankedChunks(store, sessionId, words, { model: MODEL, vector }));
    timed(times.jsScan, () => scanInJavaScript(jsMatrix, vector, 50));
  }
  return times;
}

/** The chat's vectors in one Float32Array, as the vector side kept them before the WebAssembly kernel. */
function vectorsInJavaScript(db: Db, sessionId: string, dimensions: number): Float32Array {
  const rows = db
    .prepare("SELECT vector FROM chat_document_vectors WHERE session_id = ? AND model = ? ORDER BY chunk_id")
    .pluck()
    .all(sessionId, MODEL) as Buffer[];
  const matrix = new Float32Array(rows.length * dimensions);
  rows.forEach((blob, row) => matrix.set(fromBlob(blob), row * dimensions));
  return matrix;
}

/** The baseline: the exact scan in JavaScript, a dot product a vector (four running sums), the best `limit` kept. */
function scanInJavaScript(matrix: Float32Array, query: Float32Array, limit: number): number[] {
  const best: number[] = [];
  for (let offset = 0; offset < matrix.length; offset += query.length) {
    const score = dotAt(query, matrix, offset);
    if (score <= 0 || (best.length === limit && score <= best[limit - 1]!)) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]! < score) at--;
    best.splice(at, 0, score);
    if (best.length > limit) best.pop();
  }
  return best;
}

/**
 * One chat holding `chunks` chunks of generated prose, indexed, each with its vector as the scripted backend would
 * embed it (a hashed bag of its words, `dimensions` long), as a library read with an embedding model attaches it.
 */
function fillChat(db: Db, sessionId: string, chunks: number, dimensions: number): void {
  db.prepare(
    "INSERT INTO chat_documents (session_id, document_id, name, media_type, pages, attached_at) VALUES (?, 'doc', 'big.pdf', 'application/pdf', ?, 0)",
  ).run(sessionId, chunks);
  const insertChunk = db.prepare(
    "INSERT INTO chat_document_chunks (session_id, document_id, page, text) VALUES (?, 'doc', ?, ?)",
  );
  const indexChunk = db.prepare("INSERT INTO chat_document_fts (rowid, text) VALUES (?, ?)");
  const insertVector = db.prepare(
    "INSERT INTO chat_document_vectors (session_id, model, chunk_id, vector) VALUES (?, ?, ?, ?)",
  );
  db.transaction(() => {
    for (let n = 0; n < chunks; n++) {
      const text = prose(n, 120);
      const id = insertChunk.run(sessionId, n + 1, text).lastInsertRowid;
      indexChunk.run(id, text);
      insertVector.run(sessionId, MODEL, id, toBlob(unitVector(scriptedEmbedding(text, dimensions), dimensions)));
    }
  })();
}

const only = new Set(options.only.split(","));
if (only.has("read")) await reading(options.pages);
if (only.has("health")) await healthDuringReading(options.big);
if (only.has("retrieval")) await retrieval(options.chunks, options.dimensions);
