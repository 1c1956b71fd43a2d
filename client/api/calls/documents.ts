// The typed calls of the documents routes (client/wire/routes/documents.ts).
import type { BinaryBody } from "../../transport/http.ts";
import { ProtocolError } from "../../transport/errors.ts";
import type { DocumentRecord } from "../../wire/events.ts";
import {
  addDocumentRoute,
  chatDocumentTextRoute,
  listDocumentsRoute,
  type DocumentPage,
} from "../../wire/routes/documents.ts";
import { fetchDocumentFile, type DocumentFileOptions } from "../document-file.ts";
import { RouteCaller } from "../route-caller.ts";
import { uploadInParts, type UploadOptions } from "../uploads.ts";

export abstract class DocumentCalls extends RouteCaller {
  /**
   * Adds a file to the library (docs/documents.md); it is read in the background (`document_updated` follows). Its
   * type is detected from its bytes and name; `media_type` is only a claim. Through the relay it goes in parts by
   * itself; `onProgress` tells how much has arrived.
   */
  async addDocument(
    file: { bytes: Uint8Array; name: string; media_type?: string },
    options: UploadOptions = {},
  ): Promise<DocumentRecord> {
    const { signal, onProgress } = options;
    const media_type = file.media_type ?? "application/octet-stream";
    if (this.sendsInParts(file.bytes.length)) {
      const body = { kind: "document" as const, name: file.name, content_type: media_type, bytes: file.bytes };
      const answer = await uploadInParts(this, body, options);
      if (!("document" in answer)) throw new ProtocolError("a document upload was answered as a transcription");
      return answer.document;
    }
    const body: BinaryBody = { media_type, bytes: file.bytes };
    const answer = await this.call(addDocumentRoute, { query: { name: file.name }, body }, { signal });
    onProgress?.({ sent: file.bytes.length, total: file.bytes.length });
    return answer.document;
  }

  async listDocuments(): Promise<DocumentRecord[]> {
    return (await this.call(listDocumentsRoute, {})).documents;
  }

  /** A page's text of a chat's copy of a document: readable by anyone who may read the chat, also once the library's
   *  document is deleted. */
  async chatDocumentText(sessionId: string, documentId: string, page: number): Promise<DocumentPage> {
    const params = { session_id: sessionId, document_id: documentId };
    return this.call(chatDocumentTextRoute, { params, query: { page } });
  }

  /** The file a chat's document was read from (a PDF to render), in parts that each fit one relayed call: for whoever
   *  may read the chat, while the library keeps the file (404 document_not_found once it is deleted). */
  async chatDocumentFile(sessionId: string, documentId: string, options?: DocumentFileOptions): Promise<BinaryBody> {
    return fetchDocumentFile(this, sessionId, documentId, options);
  }
}
