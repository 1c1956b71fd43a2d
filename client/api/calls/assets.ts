// The typed calls of a chat's attachments (client/wire/routes/assets.ts).
import type { BinaryBody } from "../../transport/http.ts";
import { bytesToBase64 } from "../../util/base64.ts";
import type { StoredAttachment } from "../../wire/api.ts";
import { deleteAttachmentRoute, downloadAttachmentRoute, storeAttachmentRoute } from "../../wire/routes/assets.ts";
import { RouteCaller } from "../route-caller.ts";

export interface AttachmentInput {
  /** The image's bytes; the server checks the type by content and the size against its limit. */
  bytes: Uint8Array;
  media_type?: string;
  filename?: string;
}

export abstract class AttachmentCalls extends RouteCaller {
  /** Uploads an image (as base64 JSON, so the call also fits a JSON relay); send it as {type: "asset", asset_id}. */
  async storeAttachment(sessionId: string, input: AttachmentInput): Promise<StoredAttachment> {
    const body = {
      data_base64: bytesToBase64(input.bytes),
      ...(input.media_type ? { media_type: input.media_type } : {}),
      ...(input.filename ? { filename: input.filename } : {}),
    };
    return this.call(storeAttachmentRoute, { params: { session_id: sessionId, action: "store_attachment" }, body });
  }

  async deleteAttachment(sessionId: string, assetId: string): Promise<void> {
    const params = { session_id: sessionId, action: "delete_attachment" as const };
    await this.call(deleteAttachmentRoute, { params, body: { asset_id: assetId } });
  }

  /** The stored bytes and their type (a browser shows them with URL.createObjectURL(new Blob([bytes], {type}))). */
  async downloadAttachment(sessionId: string, assetId: string): Promise<BinaryBody> {
    const params = { session_id: sessionId, action: "download_attachment" as const };
    return this.call(downloadAttachmentRoute, { params, body: { asset_id: assetId } });
  }
}
