// Uploads in parts through the bridge (docs/uploads.md): a phone that reaches only the bridge, paired end to end, sends
// a 5 MiB PDF and a 3 MiB recording with the library's own addDocument and transcribe, which go in parts by themselves
// (each part one sealed relayed call under the bridge's frame bound); the document is read and the transcript
// returned, the server's /health answers meanwhile, and another device cannot touch the upload.
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect, type ChatClient } from "../../client/index.ts";
import { callRoute } from "../../client/api/call-route.ts";
import type { UploadProgress } from "../../client/api/uploads.ts";
import { ResponseError } from "../../client/transport/errors.ts";
import { createUploadRoute, putUploadPartRoute, UPLOAD_PART_BYTES } from "../../client/wire/routes/uploads.ts";
import { UPLOADS_DIR } from "../../server/uploads/upload-service.ts";
import { cleanups, runCleanups, until, untilAsync } from "../bridge/helpers.ts";
import { NodeWebSocket } from "../client/support/stack.ts";
import { pdfWith } from "../documents/files.ts";
import { appChannel, closedPort, pairDevice, relay, relayStack, type RelayStack } from "./stack.ts";

// Ten sealed parts of a PDF, then a worker reading it: many seconds on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });
afterEach(runCleanups);

const MiB = 1024 * 1024;
const FAST = { WebSocket: NodeWebSocket, reconnectAfterMs: () => 20, retryDelaysMs: [20] };

/** A PDF of `size` bytes or a little more: two pages of text and an attached file of random bytes. */
async function bigPdf(size: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.load(await pdfWith(["The harbour opens at dawn.", "Ferries leave every hour."]));
  await pdf.attach(randomBytes(size), "padding.bin", { mimeType: "application/octet-stream" });
  return pdf.save();
}

async function phoneOnlyReachingTheBridge(stack: RelayStack, name = "phone", personId?: string): Promise<ChatClient> {
  const credentials = await pairDevice(stack, `http://127.0.0.1:${await closedPort()}`, name, personId);
  expect(credentials.e2e).toBeDefined();
  const client = connect(credentials, FAST);
  cleanups.push(() => client.close());
  await until(() => client.status.get().state === "live", "live through the bridge");
  return client;
}

async function speechStack(): Promise<RelayStack> {
  return relayStack({}, { speech: { stt: { provider_id: "default", model: "whisper-1" } } });
}

describe("uploads in parts through the relay", () => {
  it("R1 a 5 MiB PDF goes in sealed parts with progress, is read, and /health answers while it goes", async () => {
    const stack = await speechStack();
    const client = await phoneOnlyReachingTheBridge(stack);
    const pdf = await bigPdf(5 * MiB);
    const progress: UploadProgress[] = [];
    const health: number[] = [];
    const document = await client.addDocument(
      { bytes: pdf, name: "ferries.pdf", media_type: "application/pdf" },
      {
        onProgress: (step) => {
          progress.push(step);
          void fetch(`${stack.serverUrl}/health`).then((response) => health.push(response.status));
        },
      },
    );
    expect(document).toMatchObject({ name: "ferries.pdf", media_type: "application/pdf", bytes: pdf.length, pages: 2 });
    const parts = Math.ceil(pdf.length / UPLOAD_PART_BYTES);
    expect(parts).toBeGreaterThanOrEqual(10);
    expect(progress).toHaveLength(parts);
    expect(progress.at(-1)).toEqual({ sent: pdf.length, total: pdf.length });
    await until(() => health.length === parts, "every /health asked during the upload answered", 30_000);
    expect(new Set(health)).toEqual(new Set([200]));
    await untilAsync(
      async () => {
        const got = await stack.server.request({ method: "GET", url: `/documents/${document.id}` });
        return got.json.document.status !== "reading";
      },
      "document read",
      60_000,
    );
    const page = await stack.server.request({ method: "GET", url: `/documents/${document.id}/text?page=2` });
    expect(page.json.text).toContain("Ferries leave every hour.");
    expect(readdirSync(join(stack.server.dataDir, UPLOADS_DIR))).toEqual([]);
  });

  it("R2 a 3 MiB recording goes in sealed parts and its transcript comes back", async () => {
    const stack = await speechStack();
    const client = await phoneOnlyReachingTheBridge(stack);
    const recording = randomBytes(3 * MiB);
    const progress: UploadProgress[] = [];
    const text = await client.transcribe(
      { bytes: recording, media_type: "audio/webm;codecs=opus" },
      { onProgress: (step) => progress.push(step) },
    );
    expect(text).toBe(`scripted transcript of ${3 * MiB} bytes of audio/webm`);
    expect(progress.map((step) => step.sent)).toEqual([1, 2, 3, 4, 5, 6].map((n) => n * UPLOAD_PART_BYTES));
  });

  it("R3 through the relay another person's upload is upload_not_found, and a part too big is refused sealed", async () => {
    const stack = await speechStack();
    const phone = await phoneOnlyReachingTheBridge(stack, "phone");
    const ana = stack.server.runtime.ctx.people.create({ name: "Ana" });
    const tablet = await phoneOnlyReachingTheBridge(stack, "Ana's tablet", ana.id);
    const declared = { kind: "audio" as const, content_type: "audio/wav", bytes: UPLOAD_PART_BYTES + 1 };
    const { upload_id } = await callRoute(phone, createUploadRoute, { body: declared });
    const put = (client: ChatClient, n: number, size: number) =>
      callRoute(client, putUploadPartRoute, {
        params: { upload_id, n: String(n) },
        body: { data_base64: Buffer.alloc(size).toString("base64") },
      }).then(
        () => "ok",
        (error: unknown) => (error instanceof ResponseError ? error.code : String(error)),
      );
    expect(await put(tablet, 0, UPLOAD_PART_BYTES)).toBe("upload_not_found");
    expect(await put(phone, 0, UPLOAD_PART_BYTES + 1)).toBe("upload_part_too_large");
    expect(await put(phone, 1, 1)).toBe("upload_part_out_of_order");
    expect(await put(phone, 0, UPLOAD_PART_BYTES)).toBe("ok");
    expect(await put(phone, 0, UPLOAD_PART_BYTES)).toBe("upload_part_repeated");
  });

  it("R4 an unsealed relayed call may be a PUT to an upload's part and to nothing else", async () => {
    const stack = await speechStack();
    const credentials = await pairDevice(stack, stack.serverUrl, "plain");
    const { channel, socket } = await appChannel(stack, credentials.device_token);
    cleanups.push(() => socket.disconnect());
    const made = await relay(channel, "POST", "/uploads", { kind: "audio", content_type: "audio/wav", bytes: 4 });
    const id = (made.response as { body: { upload_id: string } }).body.upload_id;
    expect(await relay(channel, "PUT", `/uploads/${id}/parts/0`, { data_base64: "AAECAw==" })).toMatchObject({
      status: "ok",
      response: { status: 200, body: { received_parts: 1, received_bytes: 4 } },
    });
    for (const path of ["/sessions", `/uploads/${id}`, `/uploads/${id}/parts/0?x=1`, `/uploads/${id}/parts/0/more`])
      expect(await relay(channel, "PUT", path, {}), path).toEqual({
        status: "error",
        response: { reason: "invalid_request" },
      });
  });

  it("R5 with server_url up, `auto` sends a body over one part in parts and a small one whole; `direct` sends it whole", async () => {
    const stack = await speechStack();
    const credentials = await pairDevice(stack, stack.serverUrl);
    const declared = vi.spyOn(stack.server.runtime.ctx.uploads, "create");
    const text = (size: number) => new Uint8Array(size).fill(0x61);
    const auto = connect(credentials, FAST);
    cleanups.push(() => auto.close());
    await auto.addDocument({ bytes: text(UPLOAD_PART_BYTES + 1), name: "big.txt" });
    expect(declared).toHaveBeenCalledTimes(1);
    await auto.addDocument({ bytes: text(100), name: "small.txt" });
    const direct = connect(credentials, { ...FAST, route: "direct" });
    cleanups.push(() => direct.close());
    const whole = await direct.addDocument({ bytes: text(UPLOAD_PART_BYTES + 1), name: "whole.txt" });
    expect(whole).toMatchObject({ name: "whole.txt", bytes: UPLOAD_PART_BYTES + 1 });
    expect(declared).toHaveBeenCalledTimes(1);
  });
});
