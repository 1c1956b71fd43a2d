// Refusals that happen before a route runs, in the one error body (docs/errors.md "HTTP") like every other non-2xx answer:
//  - the router's (a URL that does not percent-decode, a route parameter over maxParamLength): Fastify hands
//    them to `frameworkErrors`, and without it answers in its own body;
//  - Node's HTTP parser's (a malformed request line or header, a bad content-length or chunk, headers over the
//    size limit, a request or its headers not received in time): Fastify hands them to `clientErrorHandler`,
//    which writes straight to the socket, since there is no request object yet.
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { statusOf, type HttpErrorCode } from "../../client/wire/errors.ts";
import { sendError } from "./error-handler.ts";
import { errorBody } from "./errors.ts";

/** Fastify's `frameworkErrors` option: the router's refusals go through the one error mapping. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(error, request, reply);
}

/** Node's parser error codes that are not a plain bad_request, with the registered code and message they answer. */
const PARSER_ERRORS: Record<string, { code: HttpErrorCode; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: "request_timeout", message: "the request was not received in time" },
  HPE_HEADER_OVERFLOW: { code: "headers_too_large", message: "the request headers exceed the size limit" },
};

/** Fastify's `clientErrorHandler` option: answers a request Node could not parse, then closes the connection. */
export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  // A reset or closed socket has no one to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const { code, message } = PARSER_ERRORS[error.code] ?? {
    code: "bad_request",
    message: `the request could not be parsed (${error.code ?? "malformed"})`,
  };
  const status = statusOf(code);
  const body = JSON.stringify(errorBody(code, message));
  // A response already under way on this connection (a pipelined request) must not be interleaved with ours.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
