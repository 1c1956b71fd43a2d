// Errors that only make sense in HTTP terms: a missing or wrong bearer token (401), an expired cursor (410), and
// the few route answers whose status is the route's own choice (422, 500). Everything a service refuses is a
// DomainError (server/errors.ts) instead; the error handler (error-handler.ts) turns both into DESIGN.md's
// body {"error": {code, message, details?}}.
export class HttpError extends Error {
  override name = "HttpError";

  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export const unauthorized = (message = "a valid bearer token is required") => new HttpError(401, "unauthorized", message);
export const gone = (code: string, message: string) => new HttpError(410, code, message);


/** DESIGN.md's error body: {"error": {code, message, details?}}. */
export function errorBody(code: string, message: string, details?: unknown) {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
