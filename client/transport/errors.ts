// What can go wrong talking to the server, as classes an app can tell apart with `instanceof`. A failed answer keeps
// the server's `code` (one of client/wire/errors.ts's registry, or a newer server's) for the app to match on.
import type { ErrorBody } from "../wire/errors.ts";
import type { LibraryErrorCode } from "../wire/library-errors.ts";

/** The server could not be reached, or the request was aborted or timed out. Retrying later may help. */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A failed answer received: the server answered with a non-2xx status. `body` is the parsed JSON (the error body,
 * or a 409 record). (The server's counterpart, an error answer it raises, is its DomainError.)
 */
export class ResponseError extends Error {
  override readonly name = "ResponseError";
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
export class UnauthorizedError extends ResponseError {}

/** 410 cursor_expired received: the cursor is older than the event log keeps, or the store was reset. Reload snapshots. */
export class CursorExpiredResponseError extends ResponseError {}

/** @deprecated Renamed ResponseError (a failed answer received, not one raised); this alias goes in the next major version. */
export const HttpError = ResponseError;
/** @deprecated Renamed ResponseError. */
export type HttpError = ResponseError;
/** @deprecated Renamed CursorExpiredResponseError (a 410 received, not the server's own CursorExpiredError). */
export const CursorExpiredError = CursorExpiredResponseError;
/** @deprecated Renamed CursorExpiredResponseError. */
export type CursorExpiredError = CursorExpiredResponseError;

/**
 * The server is offline: a call failed to reach it while the bridge says the server's link is down, or the bridge
 * relay found no server to ask (`server_unavailable`). Not a NetworkError: this device's network is fine, and "check
 * your connection" would be the wrong advice. Its `code` is `server_offline` (client/wire/library-errors.ts); the
 * failure it replaces is its `cause`. Retry once `client.status` says the server is back (`server.online`).
 */
export class ServerOfflineError extends Error {
  override readonly name = "ServerOfflineError";
  readonly code: LibraryErrorCode = "server_offline";
  constructor(
    message: string,
    /** When the server's link went down, as the bridge said (ISO 8601), if it said. */
    readonly since?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A 2xx answer whose body does not match the contract: the server speaks another version. */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError";
}

export function responseErrorFrom(status: number, body: unknown, errorBody: ErrorBody | undefined): ResponseError {
  const code = errorBody?.error.code;
  const message = errorBody?.error.message ?? `HTTP ${status}`;
  if (status === 401) return new UnauthorizedError(status, code, body, message);
  if (status === 410 && code === "cursor_expired") return new CursorExpiredResponseError(status, code, body, message);
  return new ResponseError(status, code, body, message);
}

/** A 4xx that asking again cannot change (400, 401, 404, 410...); 408 and 429 are worth a retry. */
export function isPermanentRefusal(error: unknown): error is ResponseError {
  return (
    error instanceof ResponseError &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408 &&
    error.status !== 429
  );
}
