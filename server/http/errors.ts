// The HTTP side of the one error family (server/errors.ts): the refusal of a missing or wrong bearer token, and the
// one error body (docs/errors.md "HTTP") the error handler (error-handler.ts) writes for every DomainError.
import type { HttpErrorCode } from "../../client/wire/errors.ts";
import { unauthenticated } from "../errors.ts";

export const unauthorized = (message = "a valid bearer token is required") => unauthenticated("unauthorized", message);

/** The one error body (docs/errors.md "HTTP"): {"error": {code, message, details?}}. */
export function errorBody(code: HttpErrorCode, message: string, details?: unknown) {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
