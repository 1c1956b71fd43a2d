// The failures services refuse a caller with, said without HTTP: a kind (what went wrong, from a closed set),
// the snake_case code clients match on, a message, optional details. Services, the runner, assets and
// notifications throw these so they do not depend on the transport; server/http/error-handler.ts is the one
// place that turns a kind into a status (DESIGN.md "Errors").
export type ErrorKind = "invalid" | "forbidden" | "not_found" | "conflict" | "too_large" | "unsupported_media" | "unavailable";

export class DomainError extends Error {
  override name = "DomainError";

  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

const make =
  (kind: ErrorKind) =>
  (code: string, message: string, details?: unknown): DomainError =>
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
