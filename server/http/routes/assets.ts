// The attachments extension `reference_compatible_attachments` (docs/runner.md "Attachments"):
// POST /sessions/{id}/extensions/reference_compatible_attachments/{store_attachment|delete_attachment|download_attachment}.
// store_attachment takes JSON with base64 or a raw image body; the others take JSON {asset_id}.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { ServerContext } from "../../context.ts";
import { invalid, notFound, unsupportedMedia } from "../../errors.ts";
import { parseInput } from "../validate.ts";
import type { AssetStore } from "../../assets/store.ts";

export const EXTENSION = "reference_compatible_attachments";
const ACTIONS = ["store_attachment", "delete_attachment", "download_attachment"] as const;

const params = z.object({ session_id: z.string().min(1), action: z.string() }).strict();
const storeJson = z
  .object({
    data_base64: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9+/=\s]+$/, "must be base64"),
    media_type: z.string().min(1).optional(),
    filename: z.string().min(1).max(255).optional(),
  })
  .strict();
const rawQuery = z.object({ filename: z.string().min(1).max(255).optional() }).strict();
const byId = z.object({ asset_id: z.string().min(1) }).strict();

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
    scope.post(`/sessions/:session_id/extensions/${EXTENSION}/:action`, { bodyLimit }, async (request, reply) => {
      const { session_id, action } = parseInput(params, request.params, "params");
      if (!(ACTIONS as readonly string[]).includes(action))
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
      const { asset_id } = parseInput(byId, request.body, "body");
      if (action === "delete_attachment") {
        assets.delete(session_id, asset_id);
        return { deleted: true, asset_id };
      }
      const { info, bytes } = assets.read(session_id, asset_id);
      return reply.header("content-type", info.media_type).header("cache-control", "private, max-age=0").send(bytes);
    });
  });
}

function storeBase64(assets: AssetStore, sessionId: string, body: unknown) {
  const input = parseInput(storeJson, body, "body");
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
  const { filename } = parseInput(rawQuery, query, "query");
  if (bytes.length === 0) throw invalid("invalid_input", "the request body is empty");
  return assets.store(sessionId, bytes, contentType, filename);
}
