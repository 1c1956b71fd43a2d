// Every non-2xx answer has one body shape (DESIGN.md "Errors"). Services throw DomainErrors without a status;
// KIND_STATUS below is the one place a kind becomes one. Fastify's own failures (bad JSON, oversize bodies,
// unsupported media types, bad URLs, over-long route parameters) are mapped to the same body too, so a client
// never has to parse two shapes; refusals before routing go through the same mapping (framework-errors.ts).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, type ErrorKind } from "../errors.ts";
import { CursorExpiredError } from "../events/event-store.ts";
import { errorBody, HttpError } from "./errors.ts";

const KIND_STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  unavailable: 503,
};

const FASTIFY_CODES: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: "invalid_json" },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: "invalid_json" },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: "payload_too_large" },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: "unsupported_media_type" },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: "invalid_content_length" },
  FST_ERR_BAD_URL: { status: 400, code: "invalid_url" },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: "uri_too_long" },
};

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody("route_not_found", `no route ${request.method} ${request.url.split("?")[0]}`));
  });
}

/** Answers `error` with its status and DESIGN.md's body; anything unknown is a logged 500. */
export function sendError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof DomainError) {
    return reply.status(KIND_STATUS[error.kind]).send(errorBody(error.code, error.message, error.details));
  }
  if (error instanceof HttpError) {
    return reply.status(error.statusCode).send(errorBody(error.code, error.message, error.details));
  }
  if (error instanceof CursorExpiredError) {
    return reply.status(410).send(errorBody("cursor_expired", error.message));
  }
  const known = "code" in error && typeof error.code === "string" ? FASTIFY_CODES[error.code] : undefined;
  if (known) return reply.status(known.status).send(errorBody(known.code, error.message));
  if (error instanceof SyntaxError) return reply.status(400).send(errorBody("invalid_json", error.message));
  const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : 500;
  if (status >= 400 && status < 500) return reply.status(status).send(errorBody("bad_request", error.message));
  request.log.error({ err: error }, "unhandled error");
  return reply.status(500).send(errorBody("internal_error", "the server failed to handle this request"));
}
