// Uploads in parts over HTTP (docs/uploads.md): declared, sent part by part in order, completed into what the direct
// route answers; every hostile turn (out of order, repeated, missing, too big, short, another caller's id, too many
// at once, abandoned) refused with its registry code, files private and gone once done.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { UPLOAD_PART_BYTES } from "../../client/wire/routes/uploads.ts";
import { UPLOADS_DIR } from "../../server/uploads/upload-service.ts";
import { pdfWith } from "../documents/files.ts";
import { part, patterned, useUploadServer } from "./support.ts";

// Reading a PDF starts a worker: seconds on a loaded machine.
vi.setConfig({ testTimeout: 60_000 });

const start = useUploadServer();
const P = UPLOAD_PART_BYTES;

describe("uploads in parts", () => {
  it("U1 a recording in three parts, completed, is transcribed as POST /audio/transcriptions would; its file is 0600 and gone after", async () => {
    const { json, server } = await start();
    const bytes = patterned(2 * P + 1000);
    const made = await json("POST", "/uploads", { kind: "audio", content_type: "audio/webm", bytes: bytes.length });
    expect(made).toEqual({ status: 201, body: { upload_id: expect.any(String), part_bytes: P } });
    const id = made.body.upload_id as string;
    const file = join(server.dataDir, UPLOADS_DIR, id);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (let n = 0; n < 3; n++) {
      const put = await json("PUT", `/uploads/${id}/parts/${n}`, part(bytes.subarray(n * P, (n + 1) * P)));
      expect(put).toEqual({
        status: 200,
        body: { received_parts: n + 1, received_bytes: Math.min((n + 1) * P, bytes.length) },
      });
    }
    const done = await json("POST", `/uploads/${id}/complete`);
    expect(done).toEqual({ status: 200, body: { text: `scripted transcript of ${bytes.length} bytes of audio/webm` } });
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(join(server.dataDir, UPLOADS_DIR))).toEqual([]);
    expect((await json("POST", `/uploads/${id}/complete`)).body.error.code).toBe("upload_not_found");
  });

  it("U2 a PDF in parts becomes a library document (201 {document}) and is read; POST /documents {upload_id} does the same", async () => {
    const { json, call } = await start();
    const pdf = await pdfWith(["Lisbon is the capital of Portugal.", "Porto is in the north."]);
    const upload = async () => {
      const made = await json("POST", "/uploads", {
        kind: "document",
        name: "cities.pdf",
        content_type: "application/pdf",
        bytes: pdf.length,
      });
      const id = made.body.upload_id as string;
      expect((await json("PUT", `/uploads/${id}/parts/0`, part(pdf))).status).toBe(200);
      return id;
    };
    const done = await json("POST", `/uploads/${await upload()}/complete`);
    expect(done.status).toBe(201);
    expect(done.body.document).toMatchObject({ name: "cities.pdf", media_type: "application/pdf", pages: 2 });
    const viaDocuments = await json("POST", "/documents", { upload_id: await upload() });
    expect(viaDocuments.status).toBe(201);
    expect(viaDocuments.body.document).toMatchObject({ name: "cities.pdf", pages: 2 });
    for (;;) {
      const { document } = (await json("GET", `/documents/${done.body.document.id}`)).body;
      if (document.status !== "reading") break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const page = await (await call(`/documents/${done.body.document.id}/text?page=1`)).json();
    expect(page.text).toContain("Lisbon is the capital of Portugal.");
  });

  it("U3 parts out of order, repeated, too big, short or past the last, and an early complete, are each refused with their code", async () => {
    const { json } = await start();
    const bytes = patterned(P + 10);
    const id = (await json("POST", "/uploads", { kind: "audio", content_type: "audio/ogg", bytes: bytes.length })).body
      .upload_id as string;
    const put = (n: number, data: Uint8Array) => json("PUT", `/uploads/${id}/parts/${n}`, part(data));
    const early = await json("POST", `/uploads/${id}/complete`);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: "upload_incomplete", details: { expected: 0, parts: 2 } });
    const skipped = await put(1, bytes.subarray(P));
    expect(skipped.status).toBe(409);
    expect(skipped.body.error).toMatchObject({ code: "upload_part_out_of_order", details: { expected: 0, parts: 2 } });
    const big = await put(0, patterned(P + 1));
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: "upload_part_too_large", details: { expected_bytes: P } });
    const short = await put(0, bytes.subarray(0, P - 1));
    expect(short.status).toBe(400);
    expect(short.body.error).toMatchObject({ code: "upload_part_incomplete", details: { expected_bytes: P } });
    expect((await put(0, bytes.subarray(0, P))).status).toBe(200);
    const again = await put(0, bytes.subarray(0, P));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "upload_part_repeated", details: { expected: 1 } });
    const lastTooBig = await put(1, bytes.subarray(P - 1));
    expect(lastTooBig.body.error).toMatchObject({ code: "upload_part_too_large", details: { expected_bytes: 10 } });
    expect((await put(1, bytes.subarray(P))).status).toBe(200);
    const beyond = await put(2, bytes.subarray(0, 1));
    expect(beyond.status).toBe(409);
    expect(beyond.body.error.code).toBe("upload_part_out_of_order");
    expect((await json("POST", `/uploads/${id}/complete`)).body.text).toBe(
      `scripted transcript of ${bytes.length} bytes of audio/ogg`,
    );
  });

  it("U4 another person's upload is unknown to them: no part, no complete, no document from it; the owner's other device may finish it", async () => {
    const { json, tokens } = await start();
    const id = (
      await json("POST", "/uploads", { kind: "document", name: "a.txt", content_type: "text/plain", bytes: 5 })
    ).body.upload_id as string;
    const b = tokens.b;
    for (const [method, path, body] of [
      ["PUT", `/uploads/${id}/parts/0`, part(Buffer.from("hello"))],
      ["POST", `/uploads/${id}/complete`, undefined],
      ["POST", "/documents", { upload_id: id }],
      ["POST", "/audio/transcriptions", { upload_id: id }],
    ] as const) {
      const answer = await json(method, path, body, b);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe("upload_not_found");
    }
    // Still the owner's, untouched: the owner's laptop finishes what the phone began.
    expect((await json("PUT", `/uploads/${id}/parts/0`, part(Buffer.from("hello")))).status).toBe(200);
    expect((await json("POST", `/uploads/${id}/complete`, undefined, tokens.a2)).body.document).toMatchObject({
      name: "a.txt",
      pages: 1,
    });
  });

  it("U5 declarations are bounded by the kind's limit, type and configuration before any part is sent", async () => {
    const { json } = await start({
      documents: { max_bytes: 1000 },
      speech: { stt: { provider_id: "local", model: "m" }, max_bytes: 2000 },
    });
    const refused = async (body: unknown) => (await json("POST", "/uploads", body)).body.error;
    expect(
      await refused({ kind: "document", name: "a.pdf", content_type: "application/pdf", bytes: 1001 }),
    ).toMatchObject({
      code: "document_too_large",
      details: { max_bytes: 1000 },
    });
    expect(await refused({ kind: "audio", content_type: "audio/wav", bytes: 2001 })).toMatchObject({
      code: "audio_too_large",
      details: { max_bytes: 2000 },
    });
    expect((await refused({ kind: "audio", content_type: "audio/flac", bytes: 10 })).code).toBe(
      "unsupported_media_type",
    );
    expect((await refused({ kind: "document", content_type: "text/plain", bytes: 10 })).code).toBe("invalid_input");
    for (const body of [
      { kind: "video", content_type: "x", bytes: 1 },
      { kind: "audio", content_type: "audio/wav", bytes: 0 },
      { kind: "audio", content_type: "audio/wav", bytes: 1, extra: 1 },
    ])
      expect((await refused(body)).code).toBe("invalid_input");
  });

  it("U6 speech off: an audio upload is 404 speech_not_configured at once", async () => {
    const { json } = await start({ speech: undefined });
    const answer = await json("POST", "/uploads", { kind: "audio", content_type: "audio/wav", bytes: 10 });
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe("speech_not_configured");
  });

  it("U7 a person holds at most 4 unfinished uploads; another person is not held up by them", async () => {
    const { json, tokens } = await start();
    const declare = (token?: string) =>
      json("POST", "/uploads", { kind: "audio", content_type: "audio/wav", bytes: 10 }, token);
    for (let i = 0; i < 4; i++) expect((await declare()).status).toBe(201);
    const fifth = await declare();
    expect(fifth.status).toBe(409);
    expect(fifth.body.error).toMatchObject({ code: "too_many_uploads", details: { max_uploads: 4 } });
    expect((await declare(tokens.b)).status).toBe(201);
  });

  it("U8 an upload idle for 15 minutes expires: its file is deleted and its id is unknown", async () => {
    const { json, clock, server } = await start();
    const id = (await json("POST", "/uploads", { kind: "audio", content_type: "audio/wav", bytes: P + 1 })).body
      .upload_id as string;
    expect((await json("PUT", `/uploads/${id}/parts/0`, part(patterned(P)))).status).toBe(200);
    clock.t += 15 * 60_000;
    expect((await json("PUT", `/uploads/${id}/parts/1`, part(patterned(1)))).status).toBe(200);
    clock.t += 15 * 60_000 + 1;
    expect(readdirSync(join(server.dataDir, UPLOADS_DIR))).toEqual([id]);
    expect((await json("POST", `/uploads/${id}/complete`)).body.error.code).toBe("upload_not_found");
    expect(readdirSync(join(server.dataDir, UPLOADS_DIR))).toEqual([]);
  });

  it("U9 over direct HTTP a part may be the raw bytes; a raw part over one part's length is 413 while it arrives", async () => {
    const { json, call } = await start();
    const bytes = patterned(P + 3);
    const id = (await json("POST", "/uploads", { kind: "audio", content_type: "audio/mp4", bytes: bytes.length })).body
      .upload_id as string;
    const raw = (n: number, data: Uint8Array) =>
      call(`/uploads/${id}/parts/${n}`, {
        method: "PUT",
        headers: { "content-type": "application/octet-stream" },
        body: data as Uint8Array<ArrayBuffer>,
      });
    const big = await raw(0, patterned(P + 100));
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe("upload_part_too_large");
    expect((await raw(0, bytes.subarray(0, P))).status).toBe(200);
    expect((await raw(1, bytes.subarray(P))).status).toBe(200);
    const done = await json("POST", "/audio/transcriptions", { upload_id: id });
    expect(done).toEqual({ status: 200, body: { text: `scripted transcript of ${bytes.length} bytes of audio/mp4` } });
  });

  it("U10 malformed parts and part numbers are 400 invalid_input, other types 415, an id over 100 characters 414; none reaches the file", async () => {
    const { json, call, server } = await start();
    const id = (await json("POST", "/uploads", { kind: "audio", content_type: "audio/wav", bytes: 4 })).body
      .upload_id as string;
    for (const body of [{ data_base64: "not base64!" }, { data_base64: "" }, { data: "AAAA" }, [], "AAAA"])
      expect((await json("PUT", `/uploads/${id}/parts/0`, body)).body.error.code).toBe("invalid_input");
    for (const n of ["-1", "x", "1.5", "99999999"])
      expect((await json("PUT", `/uploads/${id}/parts/${n}`, part(patterned(4)))).body.error.code).toBe(
        "invalid_input",
      );
    const typed = (type: string) =>
      call(`/uploads/${id}/parts/0`, { method: "PUT", headers: { "content-type": type }, body: "abcd" });
    expect((await (await typed("text/plain")).json()).error.code).toBe("invalid_input");
    const picture = await typed("image/png");
    expect(picture.status).toBe(415);
    expect((await picture.json()).error.code).toBe("unsupported_media_type");
    expect(statSync(join(server.dataDir, UPLOADS_DIR, id)).size).toBe(0);
    expect((await json("PUT", `/uploads/${"u".repeat(101)}/parts/0`, part(patterned(4)))).status).toBe(414);
  });

  it("U11 the same part sent twice at once is taken once; two completes at once finish the upload once", async () => {
    const { json, server } = await start();
    const bytes = patterned(P + 1);
    const id = (await json("POST", "/uploads", { kind: "audio", content_type: "audio/wav", bytes: bytes.length })).body
      .upload_id as string;
    const first = await Promise.all(
      [0, 0, 0].map(() => json("PUT", `/uploads/${id}/parts/0`, part(bytes.subarray(0, P)))),
    );
    expect(first.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    expect((await json("PUT", `/uploads/${id}/parts/1`, part(bytes.subarray(P)))).status).toBe(200);
    expect(statSync(join(server.dataDir, UPLOADS_DIR, id)).size).toBe(bytes.length);
    const done = await Promise.all([0, 1].map(() => json("POST", `/uploads/${id}/complete`)));
    expect(done.map((answer) => answer.status).sort()).toEqual([200, 404]);
  });
});
