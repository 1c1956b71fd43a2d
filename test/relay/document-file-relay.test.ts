// The PDF viewer's bytes through the bridge (docs/documents.md "The original file"): a phone that reaches only the
// bridge, paired end to end, fetches the file of a document attached in its chat with the library's own
// chatDocumentFile, part after part, each part one sealed relayed call under the bridge's frame bound.
import { randomBytes } from "node:crypto";
import { PDFDocument } from "pdf-lib";
import { afterEach, expect, it, vi } from "vitest";
import { connect, type ChatClient } from "../../client/index.ts";
import { DOCUMENT_FILE_PART_BYTES } from "../../client/wire/routes/documents.ts";
import { cleanups, runCleanups, until, untilAsync } from "../bridge/helpers.ts";
import { NodeWebSocket } from "../client/support/stack.ts";
import { pdfWith } from "../documents/files.ts";
import { closedPort, pairDevice, relayStack, type RelayStack } from "./stack.ts";

// Parts of a PDF sealed up and down, and a worker reading it: many seconds on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });
afterEach(runCleanups);

const FAST = { WebSocket: NodeWebSocket, reconnectAfterMs: () => 20, retryDelaysMs: [20] };

async function phoneOnlyReachingTheBridge(stack: RelayStack): Promise<ChatClient> {
  const credentials = await pairDevice(stack, `http://127.0.0.1:${await closedPort()}`, "phone");
  expect(credentials.e2e).toBeDefined();
  const client = connect(credentials, FAST);
  cleanups.push(() => client.close());
  await until(() => client.status.get().state === "live", "live through the bridge");
  return client;
}

it("R6 a document's file comes through the sealed relay in whole parts and one short one, byte for byte", async () => {
  const stack = await relayStack();
  const phone = await phoneOnlyReachingTheBridge(stack);
  const pdf = await PDFDocument.load(await pdfWith(["The harbour opens at dawn.", "Ferries leave every hour."]));
  await pdf.attach(randomBytes(2 * DOCUMENT_FILE_PART_BYTES + 1000), "padding.bin", { mimeType: "text/plain" });
  const bytes = await pdf.save();
  const document = await phone.addDocument({ bytes, name: "ferries.pdf", media_type: "application/pdf" });
  await untilAsync(
    async () =>
      (await stack.server.request({ method: "GET", url: `/documents/${document.id}` })).json.document.status ===
      "ready",
    "document ready",
    60_000,
  );
  const session = await phone.createSession();
  await phone.send(session.id, {
    content: "when do ferries leave?",
    attachments: [{ type: "document", document_id: document.id }],
  });

  const received: number[] = [];
  const file = await phone.chatDocumentFile(session.id, document.id, { onProgress: (n) => received.push(n) });
  expect(file.media_type).toBe("application/pdf");
  expect(Buffer.from(file.bytes).equals(Buffer.from(bytes))).toBe(true);
  expect(received).toEqual([DOCUMENT_FILE_PART_BYTES, 2 * DOCUMENT_FILE_PART_BYTES, bytes.length]);
});
