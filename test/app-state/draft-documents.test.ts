// The composer's draft with documents (docs/documents.md "In the app", DA5 without a page): a picked file that is not
// an image goes to the library (uploadDocument), an image stays an image; a draft is not sent while a document in it is
// still read or was refused, and is sent with it once it is ready; removing one stops following it.
import { signal } from "@preact/signals";
import { describe, expect, it } from "vitest";
import type { DocumentRecord } from "../../client/index.ts";
import type { PendingAttachment } from "../../app/src/attachments/pending.ts";
import type { PendingDocument } from "../../app/src/documents/pending-document.ts";
import { createDraft } from "../../app/src/state/chat-draft.ts";

const RECORD: DocumentRecord = {
  id: "doc_1",
  name: "lease.pdf",
  media_type: "application/pdf",
  bytes: 10,
  pages: 3,
  status: "reading",
  created_at: "2026-11-28T20:00:00.000Z",
};

function stubDocument(file: File) {
  const record = signal<DocumentRecord | undefined>(undefined);
  const problem = signal<string | undefined>(undefined);
  let released = 0;
  const document: PendingDocument = {
    kind: "document",
    id: `att_${file.name}`,
    name: file.name,
    media_type: file.type,
    bytes: file.size,
    record,
    progress: signal(undefined),
    problem,
    release: () => void (released += 1),
  };
  return { document, record, problem, released: () => released };
}

function draftWith() {
  const sent: PendingAttachment[][] = [];
  const uploads: Array<ReturnType<typeof stubDocument>> = [];
  const draft = createDraft({
    agent: signal(undefined),
    blocked: signal(false),
    badge: signal("live"),
    send: async (_text, attachments) => void sent.push(attachments),
    uploadDocument: (file) => {
      const made = stubDocument(file);
      uploads.push(made);
      return made.document;
    },
  });
  return { draft, sent, uploads };
}

const PDF = new File([new Uint8Array([0x25, 0x50, 0x44, 0x46])], "lease.pdf", { type: "application/pdf" });
const CODE = new File(["print(1)"], "tool.py", { type: "" });
const PNG = new File([new Uint8Array([0x89, 0x50])], "dot.png", { type: "image/png" });

describe("the draft with documents", () => {
  it("routes files that are not images to the library and keeps images as images", () => {
    const { draft, uploads } = draftWith();
    draft.addFiles([PDF, PNG, CODE]);
    expect(draft.attachments.value.map((item) => item.kind)).toEqual(["document", "file", "document"]);
    expect(uploads.map((made) => made.document.name)).toEqual(["lease.pdf", "tool.py"]);
    draft.dispose();
  });

  it("is not sent while a document is read or refused, and goes with it once ready", async () => {
    const { draft, sent, uploads } = draftWith();
    draft.setText("When is the rent due?");
    draft.addFiles([PDF]);
    const [upload] = uploads;
    expect(await draft.submit()).toBe(false);
    expect(draft.problem.value).toBe('"lease.pdf" is still being read; send once it is ready.');
    upload!.record.value = RECORD;
    expect(await draft.submit()).toBe(false);
    upload!.record.value = {
      ...RECORD,
      status: "failed",
      error: { code: "document_unreadable", message: "no text found" },
    };
    expect(await draft.submit()).toBe(false);
    expect(draft.problem.value).toBe('Remove "lease.pdf": no text found.');
    upload!.record.value = { ...RECORD, status: "ready" };
    expect(await draft.submit()).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.map((item) => item.kind)).toEqual(["document"]);
    expect(draft.attachments.value).toEqual([]);
    expect(upload!.released()).toBe(1);
    draft.dispose();
  });

  it("refuses a draft whose upload failed, and removing the document stops following it", async () => {
    const { draft, uploads } = draftWith();
    draft.addFiles([PDF]);
    uploads[0]!.problem.value = '"lease.pdf" was not added: unsupported (415).';
    expect(await draft.submit()).toBe(false);
    expect(draft.problem.value).toBe('Remove "lease.pdf": it was not added.');
    draft.removeAttachment(uploads[0]!.document.id);
    expect(draft.attachments.value).toEqual([]);
    expect(uploads[0]!.released()).toBe(1);
    draft.dispose();
  });

  it("says so when no device is paired to add a document to", () => {
    const draft = createDraft({
      agent: signal(undefined),
      blocked: signal(false),
      badge: signal("live"),
      send: async () => undefined,
      uploadDocument: () => undefined,
    });
    draft.addFiles([PDF]);
    expect(draft.attachments.value).toEqual([]);
    expect(draft.problem.value).toBe("Documents can be attached once this device is paired.");
    draft.dispose();
  });
});
