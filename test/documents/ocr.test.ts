// OCR of scanned PDFs (docs/documents.md "OCR"): a PDF whose pages hold only pictures of text is read by tesseract,
// page by page, so a question retrieves its words and cites the right page; without OCR it stays "a scan"; a page's
// tesseract is killed when its time is up or its document is deleted (no process left behind).
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { dialectStream } from "../../scripts/scripted-backend/index.ts";
import { ManualClock } from "../bridge/manual-clock.ts";
import { createSession, messagesOf, send, useRunner, waitForEvent } from "../runner/helpers.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";
import { addDocument, lastPassages } from "./helpers.ts";
import { scannedPdf } from "./files.ts";

// Drawing pages and tesseract take seconds each on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const LEDGER = ["Inventory of the north warehouse", "The harbour fee is seventeen crowns per barrel"];
let scan: Uint8Array;
beforeAll(async () => {
  scan = await scannedPdf(LEDGER);
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

async function settled(server: TestServer, id: string) {
  for (;;) {
    const { json } = await server.request({ method: "GET", url: `/documents/${id}` });
    if (json.document.status !== "reading") return json.document;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("OCR with tesseract", () => {
  const runner = useRunner({ documents: { inline_tokens: 6000 } });

  it("O1 a scanned PDF is read by OCR: a question retrieves its words and cites the page they are on", async () => {
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
  });
});

describe("without OCR", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("O2 a scan says 'no text found: this looks like a scan' when OCR is off or tesseract is missing", async () => {
    for (const [config, tesseractPath] of [
      [{ ocr: { enabled: false } }, undefined],
      [{}, "/nonexistent/tesseract"],
    ] as const) {
      server = await startTestServer({ documents: config }, tesseractPath ? { tesseractPath } : {});
      const document = await settled(server, await upload(server, "ledger.pdf", scan));
      expect(document).toMatchObject({
        status: "failed",
        error: {
          code: "document_unreadable",
          reason: "no_text",
          message: expect.stringMatching(/^no text found: this looks like a scan/),
        },
      });
      await server.close();
      server = undefined;
    }
  });
});

describe("a tesseract that never ends", () => {
  // A stand-in that answers --version, then writes its pid and hangs (exec: the pid is the process OCR started).
  const dir = tempDir("ocr-hang-");
  const program = join(dir, "tesseract");
  const pidFile = `${program}.pid`;
  writeFileSync(
    program,
    `#!/bin/sh\nif [ "$1" = --version ]; then echo "tesseract 5"; exit 0; fi\necho $$ > "$0.tmp"\nmv "$0.tmp" "$0.pid"\nexec sleep 600\n`,
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
  });

  /** The pid of the OCR child once it runs (it writes it as it starts). */
  async function childStarted(): Promise<number> {
    while (!existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 20));
    const pid = Number(readFileSync(pidFile, "utf8"));
    rmSync(pidFile);
    started.push(pid);
    expect(alive(pid)).toBe(true);
    return pid;
  }

  async function ended(pid: number): Promise<void> {
    while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  it("O3 a page's OCR is killed when its time is up on the server's clock; the page stays empty", async () => {
    const id = await upload(server, "slow.pdf", scan);
    const pid = await childStarted();
    clock.advance(30_000);
    await ended(pid);
    // the second page gets its own child, and its own time
    const second = await childStarted();
    expect(second).not.toBe(pid);
    clock.advance(30_000);
    await ended(second);
    expect(await settled(server, id)).toMatchObject({
      status: "failed",
      error: { reason: "no_text", message: expect.stringContaining("OCR read no words") },
    });
  });

  it("O4 deleting a document while a page is read by OCR kills its tesseract", async () => {
    const id = await upload(server, "deleted.pdf", scan);
    const pid = await childStarted();
    expect((await server.request({ method: "DELETE", url: `/documents/${id}` })).status).toBe(204);
    await ended(pid);
    expect((await server.request({ method: "GET", url: `/documents/${id}` })).status).toBe(404);
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
