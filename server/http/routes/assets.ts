// The attachments extension `reference_compatible_attachments` (docs/runner.md "Attachments"):
// POST /sessions/{id}/extensions/reference_compatible_attachments/{store_attachment|delete_attachment|download_attachment}.
// store_attachment takes JSON with base64 or a raw image body; the others take JSON {asset_id}. The contract and the
// bodies by action are client/wire/routes/assets.ts.
import type { FastifyInstance } from "fastify";
import {
  assetIdBody,
  ATTACHMENT_ACTIONS,
  ATTACHMENTS_EXTENSION,
  attachmentRoute,
  rawAttachmentQuery,
  storeAttachmentBody,
} from "../../../client/wire/routes/assets.ts";
import type { ServerContext } from "../../context.ts";
import { invalid, notFound, unsupportedMedia } from "../../errors.ts";
import { serveRoute } from "../serve-route.ts";
import { parseInput } from "../validate.ts";
import type { AssetStore } from "../../assets/store.ts";

export const EXTENSION = ATTACHMENTS_EXTENSION;
const ACTIONS: readonly string[] = ATTACHMENT_ACTIONS;

export function registerAssetRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const assets = ctx.assets;
  // base64 is 4/3 of the bytes; the slack covers the JSON around it. Checked again on the decoded bytes.
  const bodyLimit = Math.ceil(assets.maxBytes / 3) * 4 + 64 * 1024;
  // Encapsulated so the raw image parser applies to these routes only.
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      /^image\/[\w.+-]+$/i,
      { parseAs: "buffer", bodyLimit: assets.maxBytes + 1 },
      (_request, body, done) => done(null, body),
    );
    serveRoute(
      scope,
      attachmentRoute,
      ({ params: { session_id, action }, request, reply }) => {
        if (!ACTIONS.includes(action))
          throw notFound("unknown_action", `${EXTENSION} has no action "${action}"; use ${ACTIONS.join(", ")}`);
        if (action === "store_attachment") {
          const type = request.headers["content-type"] ?? "";
          if (!Buffer.isBuffer(request.body) && !/^application\/json\b/i.test(type)) {
            throw unsupportedMedia(
              "unsupported_media_type",
              `store_attachment takes application/json {data_base64, ...} or a raw image/* body, not ${type || "no content type"}`,
            );
          }
          const info = Buffer.isBuffer(request.body)
            ? storeRaw(assets, session_id, request.body, request.headers["content-type"], request.query)
            : storeBase64(assets, session_id, request.body);
          return reply.status(201).send({
            asset_id: info.asset_id,
            media_type: info.media_type,
            size: info.size,
            ...(info.filename ? { filename: info.filename } : {}),
          });
        }
        const { asset_id } = parseInput(assetIdBody, request.body, "body");
        if (action === "delete_attachment") {
          assets.delete(session_id, asset_id);
          return { deleted: true, asset_id };
        }
        const { info, bytes } = assets.read(session_id, asset_id);
        return reply.header("content-type", info.media_type).header("cache-control", "private, max-age=0").send(bytes);
      },
      { bodyLimit },
    );
  });
}

function storeBase64(assets: AssetStore, sessionId: string, body: unknown) {
  const input = parseInput(storeAttachmentBody, body, "body");
  const bytes = Buffer.from(input.data_base64, "base64");
  if (bytes.length === 0) throw invalid("invalid_input", "body.data_base64: decodes to no bytes");
  return assets.store(sessionId, bytes, input.media_type, input.filename);
}

function storeRaw(
  assets: AssetStore,
  sessionId: string,
  bytes: Buffer,
  contentType: string | undefined,
  query: unknown,
) {
  const { filename } = parseInput(rawAttachmentQuery, query, "query");
  if (bytes.length === 0) throw invalid("invalid_input", "the request body is empty");
  return assets.store(sessionId, bytes, contentType, filename);
}
