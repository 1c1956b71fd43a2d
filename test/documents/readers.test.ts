// How many documents are read at once (docs/documents.md "How many are read at once", invariants 26-28, 31, 32): a bounded
// number of reading workers for the whole server, the rest waiting their turn, a person's flood refused past their
// places, and a worker that reads document after document carrying one exit listener for its life.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, vi } from "vitest";
import { DOCUMENTS_DIR } from "../../server/documents/document-service.ts";
import { DomainError } from "../../server/errors.ts";
import { READING_WORKERS, READINGS_IN_ALL, READINGS_PER_PERSON, Readers } from "../../server/documents/reader-pool.ts";
import { ManualClock } from "../bridge/manual-clock.ts";
import { startHousehold } from "../people/support.ts";
import { part } from "../uploads/support.ts";
import { pdfWith, pdfWithoutText } from "./files.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";
import { useClosing } from "../support/use-closing.ts";
import { addDocument } from "./helpers.ts";

// A reading worker starts a loader: seconds on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const closing = useClosing();

const post = (server: TestServer, token: string, n: number) =>
  server.request({
    method: "POST",
    url: `/documents?name=note-${n}.txt`,
    token,
    headers: { "content-type": "text/plain" },
    payload: Buffer.from(`Note ${n}: the flood's document number ${n}.`),
  });

/** A tesseract stand-in in its own directory (removed after the test): `--version` runs `versionCheck` first. */
function fakeTesseract(prefix: string, versionCheck = ""): { dir: string; program: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  closing.own({ close: async () => rmSync(dir, { recursive: true, force: true }) });
  const program = join(dir, "tesseract");
  const version = `${versionCheck}echo "tesseract 5"; exit 0`;
  writeFileSync(program, `#!/bin/sh\nif [ "$1" = --version ]; then ${version}; fi\nexec sleep 600\n`);
  chmodSync(program, 0o755);
  return { dir, program };
}

/** An upload in parts of `bytes`, every part sent, not completed: its id. */
async function uploadNotCompleted(server: TestServer, token: string, name: string, type: string, bytes: Buffer) {
  const created = await server.request({
    method: "POST",
    url: "/uploads",
    token,
    payload: { kind: "document", name, content_type: type, bytes: bytes.length },
  });
  const upload = created.json.upload_id as string;
  const sent = await server.request({ method: "PUT", url: `/uploads/${upload}/parts/0`, token, payload: part(bytes) });
  expect(sent.status).toBe(200);
  return upload;
}

async function statusOnceRead(server: TestServer, token: string, id: string): Promise<string> {
  for (;;) {
    const { json } = await server.request({ method: "GET", url: `/documents/${id}`, token });
    if (json.document.status !== "reading") return json.document.status;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

it("R1 a flood of 20 documents at once is read by at most 2 workers, the rest waiting their turn; past a person's 10 places they are refused with 409, and another person's document is still taken", async () => {
  const { server, admin, adult } = closing.own(await startHousehold());
  const readers = server.runtime.ctx.documents.readers;
  const flood = Array.from({ length: 20 }, (_, n) => post(server, admin.plain.token, n));
  const other = post(server, adult.plain.token, 99);
  const answers = await Promise.all(flood);

  const taken = answers.filter((answer) => answer.status === 201);
  const refused = answers.filter((answer) => answer.status !== 201);
  expect(taken.length).toBeGreaterThanOrEqual(READINGS_PER_PERSON);
  // Some were refused: no place is given back before a worker has read a document, and a cold worker's start (the
  // loader, then the reader's code) outlasts twenty requests made in this process.
  expect(refused.length).toBeGreaterThan(0);
  for (const answer of refused) {
    expect([answer.status, answer.json.error.code]).toEqual([409, "too_many_documents_reading"]);
    expect(answer.json.error.details).toEqual({ max_documents_reading: READINGS_PER_PERSON });
  }
  expect((await other).status).toBe(201);
  const ids = taken.map((answer) => answer.json.document.id as string);
  for (const id of ids) expect(await statusOnceRead(server, admin.plain.token, id)).toBe("ready");
  expect(await statusOnceRead(server, adult.plain.token, (await other).json.document.id)).toBe("ready");

  // The bound held at every worker's start, and the queue was used (some document waited for a worker).
  expect(readers.workers.most).toBeLessThanOrEqual(READING_WORKERS);
  expect(readers.workers.mostWaiting).toBeGreaterThan(0);
  // A refused document left no file; every place was given back, so the person may send ten again at once.
  expect(readdirSync(join(server.dataDir, DOCUMENTS_DIR))).toHaveLength(ids.length + 1);
  const again = await Promise.all(
    Array.from({ length: READINGS_PER_PERSON }, (_, n) => post(server, admin.plain.token, 100 + n)),
  );
  expect(again.map((answer) => answer.status)).toEqual(Array(READINGS_PER_PERSON).fill(201));
  for (const answer of again)
    expect(await statusOnceRead(server, admin.plain.token, answer.json.document.id)).toBe("ready");
  expect(readers.workers.most).toBeLessThanOrEqual(READING_WORKERS);
});

it("R2 a worker that reads 20 documents in turn carries one exit listener all along, and no MaxListeners warning", async () => {
  const server = closing.own(await startTestServer());
  const readers = server.runtime.ctx.documents.readers;
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on("warning", onWarning);
  try {
    for (let n = 0; n < 20; n++) {
      await addDocument(server, `note-${n}.txt`, `Note ${n} of twenty, read in turn.`, { type: "text/plain" });
      const { alive } = readers.workers;
      expect(alive).toHaveLength(1); // the same worker, kept for the next document
      expect(alive.map((worker) => worker.listenerCount("exit"))).toEqual([1]);
    }
  } finally {
    process.off("warning", onWarning);
  }
  expect(warnings).not.toContain("MaxListenersExceededWarning");
});

it("R3 the server holds at most 32 documents waiting or read, one a person: the next is refused (409); closing refuses every document not yet counted (503 shutting_down)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "readers-"));
  const file = join(dir, "note.txt");
  writeFileSync(file, "A note.");
  const readers = new Readers();
  const request = { file, mediaType: "text/plain", now: () => 0 };
  try {
    const readings = Array.from({ length: READINGS_IN_ALL }, (_, n) => readers.start(`person-${n}`, request));
    const refusal = (() => {
      try {
        readers.start("one-more", request);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({
      kind: "conflict",
      code: "too_many_documents_reading",
      details: { max_documents_reading: READINGS_IN_ALL },
    });
    readers.close();
    // Those waiting are refused at once; the two a worker had begun are stopped once counted.
    const counts = await Promise.allSettled(readings.map((reading) => reading.count));
    expect(counts.map((count) => count.status === "rejected" && count.reason.code)).toEqual(
      Array(READINGS_IN_ALL).fill("shutting_down"),
    );
  } finally {
    readers.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it("R4 on start, a document a previous run left reading is read again from its file to ready, one whose file is now unreadable is failed, and a file that never got its row is removed", async () => {
  const first = await startTestServer();
  const kept = await addDocument(first, "kept.txt", "Kept text, read again after the restart.", { type: "text/plain" });
  const broken = await addDocument(first, "broken.txt", "Text that will not be read again.", { type: "text/plain" });
  const dir = join(first.dataDir, DOCUMENTS_DIR);
  // What a run stopped mid-read leaves: rows still reading, with or without their pages; and a file with no row.
  const { db } = first.runtime.ctx;
  db.prepare("UPDATE documents SET status = 'reading'").run();
  db.prepare("DELETE FROM document_pages WHERE document_id = ?").run(kept);
  db.prepare("UPDATE documents SET media_type = 'application/pdf' WHERE id = ?").run(broken);
  writeFileSync(join(dir, broken), "%PDF-1.7 and nothing a PDF reader can open");
  writeFileSync(join(dir, "doc_never_counted"), "waited for a worker when the server stopped");
  await first.close(true);

  const server = closing.own(await startTestServer({}, { dataDir: first.dataDir }));
  expect(await statusOnceRead(server, ADMIN_TOKEN, kept)).toBe("ready");
  const page = await server.request({ method: "GET", url: `/documents/${kept}/text?page=1` });
  expect(page.json.text).toBe("Kept text, read again after the restart.");
  expect(await statusOnceRead(server, ADMIN_TOKEN, broken)).toBe("failed");
  const failed = await server.request({ method: "GET", url: `/documents/${broken}` });
  expect(failed.json.document.error).toMatchObject({ code: "document_unreadable", reason: "corrupt" });
  expect(readdirSync(dir).sort()).toEqual([kept, broken].sort());
});

it("R5 while both workers are held and a person's other 8 documents wait, their next is refused (409), completing an upload too, which is kept; another person's waits its turn; all are read once the workers are free", async () => {
  // Both workers are held by scans whose OCR never answers (a tesseract that sleeps, on a clock that never moves).
  const { program } = fakeTesseract("readers-ocr-");
  const { server, admin, adult } = closing.own(
    await startHousehold({}, { clock: new ManualClock(), tesseractPath: program }),
  );
  const token = admin.plain.token;
  const readers = server.runtime.ctx.documents.readers;
  const scan = await pdfWithoutText(1);
  const scans = await Promise.all(
    ["a.pdf", "b.pdf"].map((name) =>
      server.request({ method: "POST", url: `/documents?name=${name}`, token, payload: Buffer.from(scan) }),
    ),
  );
  expect(scans.map((answer) => answer.status)).toEqual([201, 201]);
  const waiting = Array.from({ length: READINGS_PER_PERSON - 2 }, (_, n) => post(server, token, n));
  const others = post(server, adult.plain.token, 99);
  while (readers.workers.mostWaiting < READINGS_PER_PERSON - 1) await new Promise((resolve) => setImmediate(resolve));

  const bytes = Buffer.from("Sent in parts, completed once there is room.");
  const upload = await uploadNotCompleted(server, token, "late.txt", "text/plain", bytes);
  const complete = () => server.request({ method: "POST", url: `/uploads/${upload}/complete`, token });
  for (const refused of [await complete(), await post(server, token, 10)]) {
    expect([refused.status, refused.json.error.code]).toEqual([409, "too_many_documents_reading"]);
    expect(refused.json.error.details).toEqual({ max_documents_reading: READINGS_PER_PERSON });
  }

  // Deleting the scans ends their workers; the documents waiting are read in their turn.
  for (const answer of scans)
    await server.request({ method: "DELETE", url: `/documents/${answer.json.document.id}`, token });
  for (const answer of await Promise.all(waiting)) {
    expect(answer.status).toBe(201);
    expect(await statusOnceRead(server, token, answer.json.document.id)).toBe("ready");
  }
  const other = await others;
  expect(other.status).toBe(201);
  expect(await statusOnceRead(server, adult.plain.token, other.json.document.id)).toBe("ready");
  const late = await complete();
  expect(late.status, late.text).toBe(201);
  expect(await statusOnceRead(server, token, late.json.document.id)).toBe("ready");
  expect(readers.workers.most).toBeLessThanOrEqual(READING_WORKERS);
});

it("R6 a document's place is taken as it comes, not after a first PDF waits for tesseract's check: an upload refused for room is kept, and completed later", async () => {
  // tesseract's `--version` (asked once, when the first PDF comes) answers only when the test writes to its pipe.
  const { dir, program } = fakeTesseract("readers-gate-", 'read line < "$(dirname "$0")/gate"; ');
  const gate = join(dir, "gate");
  execFileSync("mkfifo", [gate]);
  const { server, admin } = closing.own(await startHousehold({}, { tesseractPath: program }));
  const token = admin.plain.token;
  const readers = server.runtime.ctx.documents.readers;
  const pdf = Buffer.from(await pdfWith(["A page of text: no OCR needed once the check has answered."]));
  const upload = await uploadNotCompleted(server, token, "kept.pdf", "application/pdf", pdf);

  // While the check is held, a person's 10 PDFs come at once: each holds its place from the moment it came.
  const posts = Array.from({ length: READINGS_PER_PERSON }, (_, n) =>
    server.request({ method: "POST", url: `/documents?name=p${n}.pdf`, token, payload: pdf }),
  );
  while (readers.held(admin.id) < READINGS_PER_PERSON) await new Promise((resolve) => setImmediate(resolve));
  const complete = () => server.request({ method: "POST", url: `/uploads/${upload}/complete`, token });
  const refused = await complete();
  expect([refused.status, refused.json.error.code]).toEqual([409, "too_many_documents_reading"]);

  await writeFile(gate, "answer\n");
  for (const answer of await Promise.all(posts)) expect(answer.status, answer.text).toBe(201);
  while (readers.held(admin.id) > 0) await new Promise((resolve) => setImmediate(resolve));
  const late = await complete();
  expect(late.status, late.text).toBe(201);
  expect(await statusOnceRead(server, token, late.json.document.id)).toBe("ready");
});

it("R7 a counted document whose row cannot be stored (the disk full) gives its worker and its place back", async () => {
  const { server, admin } = closing.own(await startHousehold());
  const { documents } = server.runtime.ctx;
  const store = (documents as unknown as { store: { insert(row: unknown): void } }).store;
  const insert = store.insert.bind(store);
  // The one fault injected: SQLite's answer when the disk is full.
  store.insert = () => {
    throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
  };
  const refused = await post(server, admin.plain.token, 1);
  expect(refused.status).toBeGreaterThanOrEqual(500);
  while (documents.readers.held(admin.id) > 0) await new Promise((resolve) => setImmediate(resolve));
  store.insert = insert;
  const added = await post(server, admin.plain.token, 2);
  expect(added.status, added.text).toBe(201);
  expect(await statusOnceRead(server, admin.plain.token, added.json.document.id)).toBe("ready");
  expect(readdirSync(join(server.runtime.ctx.dataDir, DOCUMENTS_DIR))).toEqual([added.json.document.id]);
});
