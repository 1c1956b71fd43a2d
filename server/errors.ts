// The failures services refuse a caller with, said without HTTP: a kind (what went wrong, from a closed set), the
// registered snake_case code clients match on (client/wire/errors.ts), a message, optional details. Services, the
// runner, assets and notifications throw these so they do not depend on the transport; server/http/error-handler.ts
// turns a kind into its status (docs/server.md "Errors: one family"). Each constructor takes only the codes the registry answers with
// its kind's status, so a call site can neither invent a code nor give a code another status.
import type { HttpErrorCode, HttpErrorCodeWith } from "../client/wire/errors.ts";

/** Each kind and the status it is answered with. */
export const KIND_STATUS = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  expired: 410,
  too_large: 413,
  unsupported_media: 415,
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
/** Refused for a while (shutting down); the same call may succeed later. */
export const unavailable = make("unavailable");

