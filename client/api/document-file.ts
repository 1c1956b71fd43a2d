// The file a chat's document was read from, fetched part by part (docs/documents.md "The original file"): each part is
// one call that fits one relayed frame, sealed like every relayed call, so a phone that reaches only the bridge opens
// a PDF as one on the server's network does. A part shorter than a whole one is the last.
import type { BinaryBody, Requester } from "../transport/http.ts";
import { ProtocolError } from "../transport/errors.ts";
import { chatDocumentFileRoute, DOCUMENT_FILE_PART_BYTES } from "../wire/routes/documents.ts";
import { callRoute } from "./call-route.ts";

export interface DocumentFileOptions {
  signal?: AbortSignal;
  /** Larger files are refused (a ProtocolError) before more is fetched: the caller holds the whole file. */
  maxBytes?: number;
  /** Told after each part: the bytes fetched so far. */
  onProgress?: (received: number) => void;
}

/** Files up to this size are fetched when the caller names no bound (a server's documents.max_bytes is 50 MiB). */
export const DOCUMENT_FILE_MAX_BYTES = 100 * 1024 * 1024;

export async function fetchDocumentFile(
  requester: Requester,
  sessionId: string,
  documentId: string,
  options: DocumentFileOptions = {},
): Promise<BinaryBody> {
  const { signal, maxBytes = DOCUMENT_FILE_MAX_BYTES, onProgress } = options;
  const params = { session_id: sessionId, document_id: documentId };
  const parts: Uint8Array[] = [];
  let received = 0;
  let mediaType = "application/octet-stream";
  for (let part = 0; ; part++) {
    const answer = await callRoute(requester, chatDocumentFileRoute, { params, query: { part } }, { signal });
    if (part === 0) mediaType = answer.media_type;
    parts.push(answer.bytes);
    received += answer.bytes.length;
    if (received > maxBytes) throw new ProtocolError(`the document's file is larger than ${maxBytes} bytes`);
    onProgress?.(received);
    if (answer.bytes.length < DOCUMENT_FILE_PART_BYTES) break;
  }
  return { media_type: mediaType, bytes: joined(parts, received) };
}

function joined(parts: readonly Uint8Array[], length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
