// OCR of scanned PDFs (docs/documents.md "OCR"): a PDF whose pages hold only pictures of text is read by tesseract,
// page by page, so a question retrieves its words and cites the right page; without OCR it stays "a scan"; a page's
// tesseract is killed when its time is up or its document is deleted (no process left behind).
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, createReadStream, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { PDFDocument } from "pdf-lib";
import { drawPage, OCR_DPI, OCR_MAX_SIDE } from "../../server/documents/page-image.ts";
import { ManualClock } from "../bridge/manual-clock.ts";
import { createSession, messagesOf, send, useRunner, waitForEvent } from "../runner/helpers.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";
import { addDocument, lastPassages } from "./helpers.ts";
import { scannedPdf } from "./files.ts";

// Drawing pages and tesseract take seconds each on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const LEDGER = ["Inventory of the north warehouse", "The harbour fee is seventeen crowns per barrel"];
/** Pages a strip wide enough for one line: tesseract reads one in a fraction of an A4 page's time. */
const STRIP = [360, 60] as const;
let scan: Uint8Array;
beforeAll(async () => {
  scan = await scannedPdf(LEDGER, STRIP);
});

async function upload(server: TestServer, name: string, bytes: Uint8Array): Promise<string> {
  const answer = await server.request({
    method: "POST",
    url: `/documents?name=${name}`,
    headers: { "content-type": "application/pdf" },
    payload: Buffer.from(bytes),
  });
  expect(answer.status).toBe(201);
  return answer.json.document.id;
}

/** What a scan read without OCR is. */
const UNREAD = {
  status: "failed",
  error: {
    code: "document_unreadable",
    reason: "no_text",
    message: expect.stringMatching(/^no text found: this looks like a scan \(/),
  },
};

/** The document once it is no longer read (woken by the events it publishes). */
async function settled(server: TestServer, id: string) {
  const store = server.runtime.ctx.events;
  for (;;) {
    const seen = store.latestId;
    const { json } = await server.request({ method: "GET", url: `/documents/${id}` });
    if (json.document.status !== "reading") return json.document;
    await store.waitBeyond(seen, 120_000);
  }
}

describe("OCR with tesseract", () => {
  const runner = useRunner({ documents: { inline_tokens: 6000 } });

  it("O1 a scanned PDF is read by OCR: a question retrieves its words and cites their page; OCR off, it is a scan", async () => {
    const { server, backend } = runner;
    const documentId = await addDocument(server, "ledger.pdf", scan);
    const page2 = await server.request({ method: "GET", url: `/documents/${documentId}/text?page=2` });
    expect(page2.json.text).toMatch(/harbour fee is seventeen crowns/i);
    backend.script(dialectStream("openai", { content: "Seventeen crowns a barrel [1]." }));
    const sid = await createSession(server);
    const content = "What is the harbour fee per barrel?";
    await waitForEvent(
      server,
      await send(server, sid, { content, attachments: [{ type: "document", document_id: documentId }] }),
    );
    expect(lastPassages(backend)).toMatch(/\[1\] ledger\.pdf, page 2:\s+The harbour fee is seventeen crowns/i);
    expect((await messagesOf(server, sid)).at(-1)!.metadata?.citations).toMatchObject([
      { n: 1, document_id: documentId, page: 2, quote: expect.stringMatching(/seventeen crowns/i) },
    ]);
    // OCR turned off in the settings: the same scan is a scan again
    const { json } = await server.request({ method: "GET", url: "/settings" });
    const patch = { documents: { ocr: { enabled: false } } };
    const patched = await server.request({
      method: "PATCH",
      url: "/settings",
      payload: { expected_revision: json.revision, patch },
    });
    expect(patched.status).toBe(200);
    expect(await settled(server, await upload(server, "off.pdf", scan))).toMatchObject(UNREAD);
  });
});

describe("without OCR", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("O2 a scan says 'no text found: this looks like a scan' where tesseract is missing", async () => {
    server = await startTestServer({}, { tesseractPath: "/nonexistent/tesseract" });
    expect(await settled(server, await upload(server, "missing.pdf", scan))).toMatchObject(UNREAD);
  });
});

describe("a tesseract that never ends", () => {
  // A stand-in that answers --version; OCR'ing, it opens a FIFO the test reads, writes its pid there and hangs (exec
  // keeps both the pid and the open FIFO): the test reads the pid when it starts, and the end of the FIFO when it dies.
  const dir = tempDir("ocr-hang-");
  const program = join(dir, "tesseract");
  const fifo = join(dir, "alive");
  execFileSync("mkfifo", [fifo]);
  writeFileSync(
    program,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo "tesseract 5"; exit 0; fi\nexec 3>"${fifo}"\necho $$ >&3\nexec sleep 600\n`,
  );
  chmodSync(program, 0o755);
  const clock = new ManualClock();
  let server: TestServer;
  const started: number[] = [];
  beforeAll(async () => {
    server = await startTestServer(
      { documents: { ocr: { page_timeout_ms: 30_000 } } },
      { clock, tesseractPath: program },
    );
  });
  afterAll(async () => {
    for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The next OCR child: its pid once it runs, and `ended`, resolved when it has died (its FIFO closed). */
  async function nextChild(): Promise<{ pid: number; ended: Promise<void> }> {
    const stream = createReadStream(fifo, { encoding: "utf8" });
    const ended = new Promise<void>((resolve) => stream.once("end", () => resolve()));
    const [line] = (await once(stream, "data")) as [string];
    const pid = Number(line.trim());
    started.push(pid);
    expect(alive(pid)).toBe(true);
    return { pid, ended };
  }

  it("O3 a page's OCR is killed when its time is up on the server's clock; the page stays empty", async () => {
    const id = await upload(server, "slow.pdf", scan);
    const first = await nextChild();
    clock.advance(30_000);
    await first.ended;
    // the second page gets its own child, and its own time
    const second = await nextChild();
    expect(second.pid).not.toBe(first.pid);
    clock.advance(30_000);
    await second.ended;
    expect(await settled(server, id)).toMatchObject({
      status: "failed",
      error: { reason: "no_text", message: expect.stringContaining("OCR read no words") },
    });
    expect(alive(first.pid) || alive(second.pid)).toBe(false);
  });

  it("O4 deleting a document while a page is read by OCR kills its tesseract", async () => {
    const id = await upload(server, "deleted.pdf", scan);
    const child = await nextChild();
    expect((await server.request({ method: "DELETE", url: `/documents/${id}` })).status).toBe(204);
    await child.ended;
    expect((await server.request({ method: "GET", url: `/documents/${id}` })).status).toBe(404);
  });
});

describe("pages drawn for OCR", () => {
  it("O5 a poster-sized page is drawn with its longest side at OCR_MAX_SIDE (a lower resolution); a 1-point page draws", async () => {
    const pdf = await PDFDocument.create();
    pdf.addPage([14_400, 7_200]);
    pdf.addPage([1, 1]);
    const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
    const source = await pdfjs.getDocument({ data: await pdf.save(), isEvalSupported: false, verbosity: 0 }).promise;
    const sizes = [];
    for (const number of [1, 2]) {
      const { png, dpi } = await drawPage(await source.getPage(number), source.canvasFactory as never);
      const header = Buffer.from(png);
      sizes.push({ dpi, width: header.readUInt32BE(16), height: header.readUInt32BE(20) });
    }
    await source.destroy();
    expect(sizes).toEqual([
      { dpi: Math.round((OCR_MAX_SIDE / 14_400) * 72), width: OCR_MAX_SIDE, height: OCR_MAX_SIDE / 2 },
      { dpi: OCR_DPI, width: 5, height: 5 },
    ]);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
