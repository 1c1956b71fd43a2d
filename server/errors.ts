// The server's one error family (docs/server.md "Errors: one family"): every refusal, said without HTTP: a kind (what
// went wrong, from a closed set), the registered snake_case code clients match on (client/wire/errors.ts), a message,
// optional details. Services, the runner, assets, notifications and the HTTP layer itself (a missing token, a body
// the parser refuses, an action that failed) throw these, so nothing depends on the transport;
// server/http/error-handler.ts turns a kind into its status (docs/server.md "Errors: one family"). Each constructor takes only the codes the registry answers with
// its kind's status, so a call site can neither invent a code nor give a code another status.
import type { HttpErrorCode, HttpErrorCodeWith } from "../client/wire/errors.ts";

/** Each kind and the status it is answered with. */
export const KIND_STATUS = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  expired: 410,
  too_large: 413,
  unsupported_media: 415,
  unprocessable: 422,
  too_many: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorKind = keyof typeof KIND_STATUS;

export class DomainError extends Error {
  override name = "DomainError";

  constructor(
    readonly kind: ErrorKind,
    readonly code: HttpErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

const make =
  <Kind extends ErrorKind>(kind: Kind) =>
  (code: HttpErrorCodeWith<(typeof KIND_STATUS)[Kind]>, message: string, details?: unknown): DomainError =>
    new DomainError(kind, code, message, details);

/** Input the caller sent and can fix. */
export const invalid = make("invalid");
/** No valid credential came with the call. */
export const unauthenticated = make("unauthenticated");
/** The caller may not do this to this thing. */
export const forbidden = make("forbidden");
/** No such thing (a session, message, request, asset, ...). */
export const notFound = make("not_found");
/** The thing exists but its state does not allow this now. */
export const conflict = make("conflict");
/** Input larger than a configured limit. */
export const tooLarge = make("too_large");
/** Bytes or a body of a type this operation does not take. */
export const unsupportedMedia = make("unsupported_media");
/** Understood and run, but it failed (an action that threw). */
export const unprocessable = make("unprocessable");
/** Too many of these for now (a person's daily request limit); `details.retry_after` says when to come back. */
export const tooMany = make("too_many");
/** The server's own part broke a rule (a plugin's answer its schema refuses); nothing for the caller to fix. */
export const internal = make("internal");
/** Refused for a while (shutting down); the same call may succeed later. */
export const unavailable = make("unavailable");
