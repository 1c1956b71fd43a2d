// Error answers that only make sense in HTTP terms: a missing or wrong bearer token (401), a body the JSON parser
// refuses, and the few route answers whose status is the route's own (422, 500). Everything a service refuses is a
// DomainError (server/errors.ts) instead. Both carry a registered code (client/wire/errors.ts); an ErrorAnswer's
// status is the registry's. The error handler (error-handler.ts) turns both into the one error body.
import { statusOf, type HttpErrorCode } from "../../client/wire/errors.ts";

/** An HTTP error answer the server raises (the library's counterpart, a failed answer it received, is ResponseError). */
export class ErrorAnswer extends Error {
  override name = "ErrorAnswer";
  readonly statusCode: number;

  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.statusCode = statusOf(code);
  }
}

export const unauthorized = (message = "a valid bearer token is required") => new ErrorAnswer("unauthorized", message);

/** The one error body (docs/errors.md "HTTP"): {"error": {code, message, details?}}. */
export function errorBody(code: HttpErrorCode, message: string, details?: unknown) {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
