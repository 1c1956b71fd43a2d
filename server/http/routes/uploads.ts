// Uploads in parts (docs/uploads.md): POST /uploads declares a body the kind's direct route would take, PUT
// /uploads/{id}/parts/{n} sends each part (base64 in JSON, or over direct HTTP the raw bytes), and POST
// /uploads/{id}/complete answers what that direct route would (routes/documents.ts, routes/speech.ts). An upload is
// its caller's alone (uploads/owner.ts).
import type { FastifyInstance } from "fastify";
import {
  completeUploadRoute,
  createUploadRoute,
  putUploadPartRoute,
  uploadPartBody,
} from "../../../client/wire/routes/uploads.ts";
import type { ServerContext } from "../../context.ts";
import { invalid, tooLarge, unsupportedMedia } from "../../errors.ts";
import { notConfigured } from "../../speech/backend.ts";
import { audioMediaType } from "../../speech/media-types.ts";
import type { UploadDeclaration } from "../../uploads/upload-service.ts";
import { uploadOwnerOf } from "../../uploads/owner.ts";
import { readBodyUpTo } from "../bounded-body.ts";
import { serveRoute } from "../serve-route.ts";
import { parseInput } from "../validate.ts";
import { addUploadedDocument } from "./documents.ts";
import { audioTooLarge, DEFAULT_MAX_BYTES, transcribeUpload } from "./speech.ts";

export function registerUploadRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const { uploads } = ctx;
  serveRoute(app, createUploadRoute, ({ body, request }) => {
    admit(ctx, body);
    return uploads.create(uploadOwnerOf(request.caller), body);
  });

  serveRoute(app, completeUploadRoute, async ({ params, request, reply }) => {
    const kind = uploads.kindOf(uploadOwnerOf(request.caller), params.upload_id);
    if (kind === "audio") return transcribeUpload(ctx, request, params.upload_id);
    const added = await addUploadedDocument(ctx, request, params.upload_id);
    // What POST /documents answers: 201 with the record.
    reply.status(201);
    return added;
  });

  // A part is JSON (the default parser) or, over direct HTTP, raw bytes read here up to one part's length.
  void app.register(async (scope) => {
    const partBytes = uploads.limits.partBytes;
    const refusal = () =>
      tooLarge("upload_part_too_large", `a part is at most ${partBytes} bytes`, { expected_bytes: partBytes });
    scope.addContentTypeParser("application/octet-stream", (_request, payload, done) => {
      readBodyUpTo(payload, partBytes, refusal).then((bytes) => done(null, bytes), done);
    });
    serveRoute(scope, putUploadPartRoute, ({ params, request }) => {
      const bytes = Buffer.isBuffer(request.body)
        ? request.body
        : Buffer.from(parseInput(uploadPartBody, request.body, "body").data_base64, "base64");
      return uploads.putPart(uploadOwnerOf(request.caller), params.upload_id, params.n, bytes);
    });
  });
}

/** Refuses at once what the kind's direct route would refuse from its headers: too large, a type it never takes. */
function admit(ctx: ServerContext, declared: UploadDeclaration): void {
  if (declared.kind === "document") return admitDocument(ctx, declared);
  if (!ctx.speech.status().stt) throw notConfigured("stt");
  if (!audioMediaType(declared.content_type))
    throw unsupportedMedia("unsupported_media_type", `${declared.content_type} is not a recording's type`);
  const maxBytes = ctx.speech.maxBytes() ?? DEFAULT_MAX_BYTES;
  if (declared.bytes > maxBytes) throw audioTooLarge(maxBytes);
}

function admitDocument(ctx: ServerContext, declared: UploadDeclaration): void {
  if (declared.name === undefined)
    throw invalid("invalid_input", "a document's upload needs its file name", [
      { path: "body.name", message: "Required for kind document" },
    ]);
  const maxBytes = ctx.config.documents.max_bytes;
  if (declared.bytes > maxBytes)
    throw tooLarge("document_too_large", `the file is larger than documents.max_bytes (${maxBytes} bytes)`, {
      max_bytes: maxBytes,
    });
}
