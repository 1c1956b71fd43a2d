// The one error type the adapter throws. Every failure (HTTP status, timeout, malformed body, bad attachment)
// becomes a ProviderError whose message says what the backend sent and what to check, so the runner can show it
// verbatim and never has to parse undici or JSON errors.
import { headOf } from "../../client/wire/whole-characters.ts";
export type ProviderErrorCode =
  | "http_status" // the backend answered a non-2xx status (after any configured retries)
  | "rate_limited" // HTTP 429 with no retry left
  | "not_found" // HTTP 404: usually a base_url without its version prefix
  | "timeout" // no response (or no first byte of a stream) within `timeout`
  | "stream_idle_timeout" // a begun stream went silent for longer than the idle timeout
  | "stream_interrupted" // the connection broke mid-stream and no recovery was left
  | "connection" // connect failed (refused, DNS, reset before headers)
  | "invalid_response" // body not JSON, an HTML page, JSON of the wrong shape, or too large (attempt.ts)
  | "invalid_chunk" // a stream event that is not a JSON object, is too large (sse.ts), or could not be handled
  | "backend_error" // the backend reported an error inside a 200 response or stream
  | "invalid_tool_arguments" // a tool call whose assembled arguments are not JSON
  | "attachment_not_allowed" // an image kind the settings forbid
  | "attachment_unavailable" // an asset that cannot be read
  | "invalid_request" // request input refused before anything was sent
  | "aborted"; // the caller's signal fired

export interface ProviderErrorOptions {
  status?: number;
  cause?: unknown;
  /** A bounded excerpt of what the backend sent, for logs and error details. */
  body?: string;
}

export class ProviderError extends Error {
  override name = "ProviderError";
  readonly status: number | undefined;
  readonly body: string | undefined;

  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    options: ProviderErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.body = options.body;
  }
}

/** The text parsed as JSON; text that is not JSON throws the ProviderError `refusal` builds (what the backend sent). */
export function parseJsonOr(text: string, refusal: () => ProviderError): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw refusal();
  }
}

const EXCERPT = 300;

/** A printable excerpt of a backend body: whitespace collapsed, cut at EXCERPT characters. Only a prefix of a long
 *  text is looked at, so excerpting a body of megabytes costs no more than one of a few KiB. */
export function excerpt(text: string): string {
  const cut = text.length > EXCERPT * 8;
  const flat = (cut ? headOf(text, EXCERPT * 8) : text).replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT || cut ? `${headOf(flat, EXCERPT)}…` : flat;
}

/** The error for a non-2xx answer we will not retry: names the status, the body and what to check. */
export function statusError(status: number, url: string, body: string, contentType: string): ProviderError {
  const sent = describeBody(body, contentType);
  if (status === 404) {
    return new ProviderError(
      "not_found",
      `the backend answered 404 for POST ${url} (${sent}); check that base_url includes the API version prefix (for example .../v1) and that the model exists`,
      { status, body: excerpt(body) },
    );
  }
  if (status === 429) {
    return new ProviderError(
      "rate_limited",
      `the backend rate-limited the request (HTTP 429: ${sent}); configure rate_limit_retry_delays_seconds to retry`,
      { status, body: excerpt(body) },
    );
  }
  const hint =
    status === 401 || status === 403
      ? "; check api_key"
      : status === 400
        ? "; check model and request_options (some servers refuse stream_options: set include_usage_in_stream false)"
        : "";
  return new ProviderError("http_status", `the backend answered HTTP ${status} for ${url} (${sent})${hint}`, {
    status,
    body: excerpt(body),
  });
}

/** Says what kind of body came back: the backend's own error message when it is JSON, else an excerpt. */
export function describeBody(body: string, contentType: string): string {
  if (body.trim() === "") return "empty body";
  if (/html/i.test(contentType) || /^\s*<(!doctype|html)/i.test(body)) return `an HTML page: "${excerpt(body)}"`;
  try {
    const parsed: unknown = JSON.parse(body);
    const message = errorMessageOf(parsed);
    if (message !== undefined) return `error: ${excerpt(message)}`;
  } catch {
    return `non-JSON body: "${excerpt(body)}"`;
  }
  return `body: ${excerpt(body)}`;
}

/** The message of an error object in any of the shapes backends use ({error: {message}}, {error: "..."}, {message}). */
export function errorMessageOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const error = record.error;
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null) {
    const inner = (error as Record<string, unknown>).message;
    if (typeof inner === "string") return inner;
    return JSON.stringify(error);
  }
  if (typeof record.message === "string") return record.message;
  return undefined;
}
