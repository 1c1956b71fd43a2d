// The library (docs/documents.md): files stored and read in a worker, by page or section, types decided by bytes and
// extension, limits refused early, deleted for good.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";
import { docxBomb, docxWith, pdfWith, pdfWithoutText, pdfWithPassword } from "./files.ts";

// A reading worker starts a loader and pdf.js: seconds on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(documents: Record<string, unknown> = {}) {
  server = await startTestServer({ documents });
  const url = await server.runtime.app.listen({ port: 0, host: "127.0.0.1" });
  const call = (path: string, init: RequestInit = {}) =>
    fetch(url + path, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.headers as object) } });
  const upload = (name: string, bytes: Uint8Array, type = "application/octet-stream") =>
    call(`/documents?name=${encodeURIComponent(name)}`, {
      method: "POST",
      headers: { "content-type": type },
      body: bytes as Uint8Array<ArrayBuffer>,
    });
  const ready = async (id: string) => {
    for (;;) {
      const { document } = await (await call(`/documents/${id}`)).json();
      if (document.status !== "reading") return document;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { call, upload, ready, dataDir: server.dataDir };
}

describe("the library", () => {
  it("D1 a PDF is read page by page off the main thread; its pages' text is served by number", async () => {
    const { upload, ready, call } = await start();
    const response = await upload(
      "report.pdf",
      await pdfWith(["Intro page", "Clause 7: the tenant pays rent monthly.", "End"]),
    );
    expect(response.status).toBe(201);
    const { document } = await response.json();
    expect(document).toMatchObject({ name: "report.pdf", media_type: "application/pdf", pages: 3, status: "reading" });
    expect(await ready(document.id)).toMatchObject({ status: "ready", pages: 3 });
    const page = await (await call(`/documents/${document.id}/text?page=2`)).json();
    expect(page).toEqual({ page: 2, text: "Clause 7: the tenant pays rent monthly." });
    expect((await call(`/documents/${document.id}/text?page=4`)).status).toBe(404);
    const list = await (await call("/documents")).json();
    expect(list.documents.map((d: { id: string }) => d.id)).toEqual([document.id]);
  });

  it("D2 a DOCX and Markdown are cut into sections at their top headings; HTML's scripts and styles are dropped", async () => {
    const { upload, ready, call } = await start();
    const docx = await (
      await upload(
        "terms.docx",
        docxWith([
          [undefined, "Preface"],
          ["Heading1", "Payment"],
          [undefined, "Pay by the 5th."],
          ["Heading1", "Notice"],
          [undefined, "Two months."],
        ]),
      )
    ).json();
    expect(await ready(docx.document.id)).toMatchObject({
      status: "ready",
      pages: 3,
      media_type: expect.stringContaining("wordprocessingml"),
    });
    expect(await (await call(`/documents/${docx.document.id}/text?page=2`)).json()).toEqual({
      page: 2,
      heading: "Payment",
      text: "Payment\n\nPay by the 5th.",
    });
    const md = await (
      await upload("notes.md", new TextEncoder().encode("# One\nalpha\n```\n# not a heading\n```\n## Two\nbeta"))
    ).json();
    expect(await ready(md.document.id)).toMatchObject({ pages: 2, media_type: "text/markdown" });
    const html = await (
      await upload(
        "page.html",
        new TextEncoder().encode("<h1>Title</h1><script>alert('x')</script><style>p{}</style><p>Body text</p>"),
      )
    ).json();
    await ready(html.document.id);
    const text = await (await call(`/documents/${html.document.id}/text?page=1`)).json();
    expect(text.text).toBe("Title\n\nBody text");
    expect(JSON.stringify(text)).not.toContain("alert");
  });

  it("D3 types are decided by the bytes: a mismatch names both, an unknown type is 415, non-UTF-8 text is refused", async () => {
    const { upload } = await start();
    const mismatch = await upload("a.pdf", docxWith([[undefined, "x"]]), "application/pdf");
    expect(mismatch.status).toBe(400);
    expect((await mismatch.json()).error).toMatchObject({
      code: "media_type_mismatch",
      details: { declared: "application/pdf", detected: expect.stringContaining("wordprocessingml") },
    });
    expect((await upload("a.exe", new Uint8Array([0x4d, 0x5a, 1, 2]))).status).toBe(415);
    expect((await upload("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9]))).status).toBe(415);
  });

  it("D4 limits: max_bytes from Content-Length (413, the client reads it), max_pages before any page is read (422)", async () => {
    const { upload, call } = await start({ max_bytes: 100_000, max_pages: 5 });
    const big = await upload("big.txt", new Uint8Array(300_000).fill(0x61));
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatchObject({ code: "document_too_large", details: { max_bytes: 100_000 } });
    const pages = await upload("long.pdf", await pdfWith(Array.from({ length: 9 }, (_, i) => `page ${i}`)));
    expect(pages.status).toBe(422);
    expect((await pages.json()).error).toMatchObject({ code: "too_many_pages", details: { pages: 9, max_pages: 5 } });
    expect((await (await call("/documents")).json()).documents).toEqual([]);
  });

  it("D5 unreadable files say why: corrupt or behind a password (422 at once), no text (a scan: failed once read), a DOCX bomb ends its worker only", async () => {
    // OCR off: its scan is the one OCR could not help (OCR has test/documents/ocr.test.ts)
    const { upload, ready, call } = await start({ ocr: { enabled: false } });
    const corrupt = await upload("broken.pdf", new TextEncoder().encode("%PDF-1.7\nthis is not a pdf"));
    expect(corrupt.status).toBe(422);
    expect((await corrupt.json()).error).toMatchObject({ code: "document_unreadable", details: { reason: "corrupt" } });
    const locked = await upload("locked.pdf", pdfWithPassword("secret"));
    expect(locked.status).toBe(422);
    expect((await locked.json()).error).toMatchObject({
      code: "document_unreadable",
      message: expect.stringMatching(/password/),
      details: { reason: "encrypted" },
    });
    const scan = await (await upload("scan.pdf", await pdfWithoutText(2))).json();
    expect(await ready(scan.document.id)).toMatchObject({
      status: "failed",
      error: { code: "document_unreadable", reason: "no_text", message: expect.stringContaining("scan") },
    });
    const bomb = await upload("bomb.docx", docxBomb(210));
    expect(bomb.status).toBe(422); // the count of a DOCX is known once it is unpacked: the bound refuses it first
    expect((await bomb.json()).error.message).toMatch(/zip bomb/);
    expect((await call("/health")).status).toBe(200);
    // the worker that found those unreadable reads the next document as well (it is kept between documents)
    const after = await (await upload("after.pdf", await pdfWith(["Read after three bad files"]))).json();
    expect(await ready(after.document.id)).toMatchObject({ status: "ready", pages: 1 });
    expect(await (await call(`/documents/${after.document.id}/text?page=1`)).json()).toEqual({
      page: 1,
      text: "Read after three bad files",
    });
  }, 90_000);

  it("D6 deleting a document removes its file and text from every file of the data folder", async () => {
    const { upload, ready, call, dataDir } = await start();
    const secret = "Zanzibar-quartz-71 is the vault code";
    const { document } = await (await upload("secret.txt", new TextEncoder().encode(secret))).json();
    await ready(document.id);
    expect((await call(`/documents/${document.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`/documents/${document.id}`)).status).toBe(404);
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : [path];
      });
    const holding = files(dataDir).filter((file) => readFileSync(file).includes("Zanzibar-quartz"));
    expect(holding).toEqual([]);
  });
});
