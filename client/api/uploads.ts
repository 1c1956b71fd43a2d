// A body sent in parts (docs/uploads.md): a document or a recording too large for one relayed call, or going through
// the relay at all (the relay carries JSON only), is declared, sent part by part (each part one relayed call, sealed
// like every relayed call of an encrypting device) and completed, which answers what the direct route would.
import type { Requester } from "../transport/http.ts";
import { bytesToBase64 } from "../util/base64.ts";
import type { RouteAnswer } from "../wire/routes/route.ts";
import { completeUploadRoute, createUploadRoute, putUploadPartRoute, type UploadKind } from "../wire/routes/uploads.ts";
import { callRoute } from "./call-route.ts";

/** How much of a body has reached the server: told after each part (and once at the end of a direct call). */
export interface UploadProgress {
  sent: number;
  total: number;
}

export interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

export interface PartsBody {
  kind: UploadKind;
  name?: string;
  content_type: string;
  bytes: Uint8Array;
}

/** Sends `body` in parts and completes it: the direct route's answer (`{document}` or `{text}`). */
export async function uploadInParts(
  requester: Requester,
  body: PartsBody,
  options: UploadOptions = {},
): Promise<RouteAnswer<typeof completeUploadRoute>> {
  const { signal, onProgress } = options;
  const total = body.bytes.length;
  const declared = { kind: body.kind, name: body.name, content_type: body.content_type, bytes: total };
  const { upload_id, part_bytes } = await callRoute(requester, createUploadRoute, { body: declared }, { signal });
  for (let n = 0, offset = 0; offset < total; n++, offset += part_bytes) {
    const part = body.bytes.subarray(offset, Math.min(offset + part_bytes, total));
    const input = { params: { upload_id, n: String(n) }, body: { data_base64: bytesToBase64(part) } };
    await callRoute(requester, putUploadPartRoute, input, { signal });
    onProgress?.({ sent: offset + part.length, total });
  }
  return callRoute(requester, completeUploadRoute, { params: { upload_id } }, { signal });
}
