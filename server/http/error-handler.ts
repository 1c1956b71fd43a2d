// Every non-2xx answer has one body shape (docs/server.md "Errors: one family"). Everything the server refuses is a
// DomainError without a status, whose kind says it (KIND_STATUS, server/errors.ts). Fastify's own failures (bad JSON,
// oversize bodies, unsupported media types, bad URLs, over-long route parameters) are mapped to the same body too, so a client never has to parse two shapes; refusals
// before routing go through the same mapping (framework-errors.ts).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { statusOf, type HttpErrorCode } from "../../client/wire/errors.ts";
import { DomainError, KIND_STATUS } from "../errors.ts";
import { errorBody } from "./errors.ts";

/** Fastify's error codes and the registered codes they are answered with. */
const FASTIFY_CODES: Record<string, HttpErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_json",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_json",
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "invalid_content_length",
  FST_ERR_BAD_URL: "invalid_url",
  FST_ERR_MAX_PARAM_LENGTH: "uri_too_long",
};

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    reply
      .status(statusOf("route_not_found"))
      .send(errorBody("route_not_found", `no route ${request.method} ${request.url.split("?")[0]}`));
  });
}

/** Answers `error` with its status and the one error body; anything unknown is a logged 500. */
export function sendError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof DomainError) {
    const retryAfter = (error.details as { retry_after?: unknown } | undefined)?.retry_after;
    if (typeof retryAfter === "number") reply.header("retry-after", String(retryAfter));
    return reply.status(KIND_STATUS[error.kind]).send(errorBody(error.code, error.message, error.details));
  }
  const known = "code" in error && typeof error.code === "string" ? FASTIFY_CODES[error.code] : undefined;
  if (known) return reply.status(statusOf(known)).send(errorBody(known, error.message));
  if (error instanceof SyntaxError)
    return reply.status(statusOf("invalid_json")).send(errorBody("invalid_json", error.message));
  const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : 500;
  // bad_request keeps the framework's own 4xx status (the registry says so).
  if (status >= 400 && status < 500) return reply.status(status).send(errorBody("bad_request", error.message));
  request.log.error({ err: error }, "unhandled error");
  return reply
    .status(statusOf("internal_error"))
    .send(errorBody("internal_error", "the server failed to handle this request"));
}
