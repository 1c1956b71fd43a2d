// Documents benchmark (docs/documents.md, docs/benchmarks.md "Documents"). Three JSON lines:
//
// `documents-read`: a text PDF of --pages pages (200), written by pdf-lib, sent to a server in its own process;
// the time from POST /documents to the document's status `ready` (every page read off the main thread and stored),
// beside the baseline measured in this run: pdf.js's own text extraction of the same file alone, in this process.
//
// `documents-health`: a PDF of --big pages (500) read while another connection asks GET /health over and over: the
// p99 and the worst during the reading, beside the p99 on the idle server just before.
//
// `documents-retrieval`: --chunks chunks (100,000) of generated prose in one chat's index; the p99 of the chat's best
// chunks for a question (BM25, what a turn asks), beside the baseline of FTS5 finding the same words unranked.
// Usage: node --import tsx scripts/bench/documents.ts [--pages 200] [--big 500] [--chunks 100000]
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { Client } from "undici";
import { z } from "zod";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { withProbedServer } from "./probed/server.ts";
import { median, percentile } from "./stats.ts";

const { values } = parseArgs({
  options: {
    pages: { type: "string", default: "200" },
    big: { type: "string", default: "500" },
    chunks: { type: "string", default: "100000" },
  },
});
const TOKEN = "bench-token";
const round = (value: number) => Math.round(value * 10) / 10;
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

async function retrieval(chunks: number): Promise<void> {
  const dir = tempDir("bench-documents-");
  const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: TOKEN });
  try {
    const { db, sessions, documents } = runtime.ctx;
    const sessionId = sessions.create().id;
    db.prepare(
      "INSERT INTO chat_documents (session_id, document_id, name, media_type, pages, attached_at) VALUES (?, 'doc', 'big.pdf', 'application/pdf', ?, 0)",
    ).run(sessionId, chunks);
    const insertChunk = db.prepare(
      "INSERT INTO chat_document_chunks (session_id, document_id, page, text) VALUES (?, 'doc', ?, ?)",
    );
    const indexChunk = db.prepare("INSERT INTO chat_document_fts (rowid, text) VALUES (?, ?)");
    db.transaction(() => {
      for (let n = 0; n < chunks; n++) {
        const text = prose(n, 120);
        indexChunk.run(insertChunk.run(sessionId, n + 1, text).lastInsertRowid, text);
      }
    })();
    const questions = Array.from({ length: 300 }, (_, q) => prose(10_000_000 + q, 4).split(" "));
    const ranked: number[] = [];
    const unranked: number[] = [];
    const unrankedQuery = db.prepare("SELECT rowid FROM chat_document_fts WHERE chat_document_fts MATCH ? LIMIT 8");
    for (const words of questions) {
      const match = words.map((word) => `"${word}"`).join(" OR ");
      let start = performance.now();
      documents.store.bestChunks(sessionId, words, 8);
      ranked.push(performance.now() - start);
      start = performance.now();
      unrankedQuery.all(match);
      unranked.push(performance.now() - start);
    }
    console.log(
      JSON.stringify({
        bench: "documents-retrieval",
        chunks,
        questions: questions.length,
        bm25_p50_ms: round(percentile(ranked, 50)),
        bm25_p99_ms: round(percentile(ranked, 99)),
        baseline_unranked_p99_ms: round(percentile(unranked, 99)),
        load_average: load(),
      }),
    );
  } finally {
    await runtime.close();
  }
}

await reading(Number(values.pages));
await healthDuringReading(Number(values.big));
await retrieval(Number(values.chunks));
