// What can go wrong talking to the server, as classes an app can tell apart with `instanceof`.
import type { ErrorBody } from "../wire/errors.ts";

/** The server could not be reached, or the request was aborted or timed out. Retrying later may help. */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The server answered with a non-2xx status. `body` is the parsed JSON (the error body, or a 409 record). */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
  }
}

/** 401: the device token is missing, wrong or revoked. The client stops; pair again. */
export class UnauthorizedError extends HttpError {}

/** 410 cursor_expired: the cursor is older than the event log keeps, or the store was reset. Reload snapshots. */
export class CursorExpiredError extends HttpError {}

/** A 2xx answer whose body does not match the contract: the server speaks another version. */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError";
}

export function httpErrorFrom(status: number, body: unknown, errorBody: ErrorBody | undefined): HttpError {
  const code = errorBody?.error.code;
  const message = errorBody?.error.message ?? `HTTP ${status}`;
  if (status === 401) return new UnauthorizedError(status, code, body, message);
  if (status === 410 && code === "cursor_expired") return new CursorExpiredError(status, code, body, message);
  return new HttpError(status, code, body, message);
}

/** A 4xx that asking again cannot change (400, 401, 404, 410...); 408 and 429 are worth a retry. */
export function isPermanentRefusal(error: unknown): error is HttpError {
  return error instanceof HttpError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}
