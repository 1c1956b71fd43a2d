// The HTTP API's errors, declared once (as fastify's lib/errors.js and undici's lib/core/errors.js declare theirs):
// every `code` a non-2xx body can carry, the status it is answered with and what it means. The server raises only
// these codes (its constructors take an HttpErrorCode), the library matches on them, and docs/errors.md is generated
// from this table (scripts/gen-errors-doc.ts). The body itself is docs/errors.md "HTTP", except the 409 of a dismiss or an interaction's answer
// (the current record: a route contract's `conflictRecord`).
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";

export const errorBodySchema = lazySchema(() =>
  z.object({
    error: z.object({
      code: z.string().regex(/^[a-z][a-z0-9_]*$/),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  }),
);
export type ErrorBody = z.infer<typeof errorBodySchema>;

export interface HttpErrorRule {
  /** The status it is answered with; a code two routes answer differently lists both. */
  status: number | readonly number[];
  meaning: string;
}

export const HTTP_ERRORS = {
  // 400: input the caller can fix
  invalid_input: {
    status: 400,
    meaning:
      "the body, query or route parameters do not match the route's schema, or a string in a JSON body (value or key) is not well-formed Unicode (a lone surrogate, docs/server.md \"Route contracts\"); `details` lists each issue's path and message",
  },
  invalid_json: {
    status: 400,
    meaning: "the body is not JSON, is empty where JSON is required, or is nested deeper than 64 levels",
  },
  invalid_content_length: { status: 400, meaning: "the Content-Length header does not match the body" },
  invalid_url: { status: 400, meaning: "the URL does not percent-decode" },
  bad_request: {
    status: 400,
    meaning:
      "Node's parser could not read the request (connection closed), or another 4xx refusal of the framework, answered with its own status",
  },
  attachment_not_allowed: {
    status: 400,
    meaning: "the agent's settings do not allow this kind of attachment (remote URL or inline image)",
  },
  media_type_mismatch: {
    status: 400,
    meaning: "an attachment's declared media type is not what its bytes are; `details` has both",
  },
  upload_part_incomplete: {
    status: 400,
    meaning:
      "PUT /uploads/{id}/parts/{n}: the part is shorter than it must be (every part but the last is `part_bytes` long); `details.expected_bytes`",
  },
  unknown_endpoint: { status: 400, meaning: "the provider has no endpoint with this label" },
  invalid_import: {
    status: 400,
    meaning:
      "POST /import: the file is not JSON, not a JSON array, or an element is neither a chat-relay chat record nor a ChatGPT conversation (or breaks its schema); the message names the element and the problem; nothing was imported",
  },
  index_out_of_range: {
    status: 400,
    meaning: "a message index to delete is past the end of the session; nothing is deleted",
  },
  sealed_request_invalid: {
    status: 400,
    meaning:
      "an end-to-end sealed relayed call does not open (altered, made under another key, for another device), is stale (at or before the device's calls the server no longer remembers one by one), or its inner call is malformed (docs/security.md)",
  },
  push_endpoint_not_allowed: {
    status: 400,
    meaning:
      "a push subscription's endpoint is not https: on one of `push.allowed_hosts` (docs/push.md); `details` names the field",
  },
  invalid_settings: {
    status: 400,
    meaning:
      "PATCH /settings: the patch would make a config the server cannot run; `details` lists each problem as `{path, message}`; nothing was changed",
  },
  link_local_not_allowed: {
    status: 400,
    meaning:
      "POST /providers/{id}/test: the provider's address is (or resolves to) a link-local one, where clouds answer metadata requests; the config file's `settings.allow_link_local` allows it",
  },
  cannot_share_with_owner: { status: 400, meaning: "a chat cannot be shared with the person who owns it" },
  // 401, 403: who may do this
  unauthorized: { status: 401, meaning: "the bearer token is missing, wrong or revoked" },
  admin_required: {
    status: 403,
    meaning:
      "the route or choice needs the admin role (an admin person's device or the admin token): managing people, pairing for someone else, the audit log",
  },
  share_access_denied: {
    status: 403,
    meaning:
      "the caller's person may see this chat but not do this to it (only its owner may, or it is shared read-only)",
  },
  notice_not_dismissable: {
    status: 403,
    meaning:
      "the new-device notice about the calling device cannot be dismissed by that device; another of its person's devices may",
  },
  agent_not_allowed: {
    status: 403,
    meaning: "the agent is not among the caller's person's allowed `agents`",
  },
  forbidden: { status: 403, meaning: "the route needs the admin token; a device token was given" },
  asset_not_owned: {
    status: 403,
    meaning: "the attachment belongs to the session this one was forked from; delete it there",
  },
  device_token_required: {
    status: 403,
    meaning:
      "the route acts on the calling device (/devices/self, its push subscriptions and settings); the admin token names no device",
  },
  producer_not_allowed: {
    status: 403,
    meaning:
      "a producer token may only publish and resolve notifications (POST /application/notifications, POST /sessions/{id}/notifications and their /resolve)",
  },
  not_e2e_device: {
    status: 403,
    meaning:
      "the route is for devices paired with a public key (end-to-end encryption); the admin token and plain devices have no keys",
  },
  settings_locked: {
    status: 403,
    meaning:
      "PATCH /settings changes what runs on the server (a stdio MCP server's command, args, env or cwd, or `plugins`) without the admin token, and the config file does not set `settings.allow_commands: true`; `details.paths` names them",
  },
  // 404: no such thing
  route_not_found: {
    status: 404,
    meaning: "no route for this method and path (the bridge's plain HTTP answers it too)",
  },
  session_not_found: { status: 404, meaning: "no session with this id" },
  share_link_not_found: {
    status: 404,
    meaning:
      "GET /shared/{token} and DELETE …/share-links/{token}: no live share link with this token (never made, revoked, expired, or its chat deleted or transferred); all answered alike",
  },
  document_not_found: {
    status: 404,
    meaning: "no document with this id in the caller's library (or, in a chat's route, attached in that chat)",
  },
  page_not_found: { status: 404, meaning: "GET …/text?page=N: the document has no such page or section" },
  speech_not_configured: {
    status: 404,
    meaning:
      "the config's `speech` names no STT (transcriptions) or no TTS (speech) backend, or espeak-ng is not installed",
  },
  upload_not_found: {
    status: 404,
    meaning:
      "no unfinished upload in parts with this id of the caller's: never made, another caller's, already completed, or expired after 15 idle minutes",
  },
  message_not_found: { status: 404, meaning: "the session has no message at this index" },
  agent_not_found: {
    status: [404, 409],
    meaning:
      "404: no agent with this id (on this provider); 409 on send: the session's agent is no longer in the config",
  },
  request_not_found: { status: 404, meaning: "the session never had a request with this id" },
  asset_not_found: {
    status: 404,
    meaning: "the session (and the sessions it was forked from) has no attachment with this id",
  },
  notification_not_found: { status: 404, meaning: "no notification with this id in this scope" },
  action_not_found: { status: 404, meaning: "no action with this name in this scope" },
  unknown_action: { status: 404, meaning: "the attachments extension has no action with this name" },
  provider_not_found: { status: 404, meaning: "no provider with this id in the config" },
  push_not_configured: {
    status: 404,
    meaning: "Web Push is off: the server's config has no `push` object (docs/push.md)",
  },
  producer_not_found: { status: 404, meaning: "no producer with this id (it may have been revoked already)" },
  prompt_not_found: { status: 404, meaning: "the caller has no saved prompt with this id" },
  mcp_server_not_found: { status: 404, meaning: "no MCP server with this name in the settings" },
  person_not_found: { status: 404, meaning: "no live person with this id (unknown or removed)" },
  device_not_found: { status: 404, meaning: "no paired device with this id (it may have been revoked already)" },
  // 408-431: the request's shape or timing
  request_timeout: {
    status: 408,
    meaning: "the headers or the whole request were not received in time (connection closed)",
  },
  request_in_progress: {
    status: 409,
    meaning: "the session already has a request in flight; `details.request_id` names it",
  },
  request_finished: { status: 409, meaning: "the request to cancel has already finished" },
  notification_conflict: {
    status: 409,
    meaning:
      "a producer publication or resolve by key met an active interaction under that key, or named another operation_id than the active occurrence's; `details.current` is the record. A dismiss or an interaction's answer at another revision, or of a record that cannot take it, answers the current record itself as the 409's body instead",
  },
  upload_part_out_of_order: {
    status: 409,
    meaning:
      "PUT /uploads/{id}/parts/{n}: parts go in order from 0 and this is not the next one; `details: {expected, parts}`",
  },
  upload_part_repeated: {
    status: 409,
    meaning: "PUT /uploads/{id}/parts/{n}: this part already arrived; `details: {expected, parts}` says which is next",
  },
  upload_incomplete: {
    status: 409,
    meaning:
      "completing an upload whose parts have not all arrived; `details: {expected, parts}` says which is missing",
  },
  too_many_uploads: {
    status: 409,
    meaning:
      "POST /uploads: the caller (or the server) has as many unfinished uploads as it may; `details.max_uploads`",
  },
  too_many_documents_reading: {
    status: 409,
    meaning:
      "POST /documents (or completing a document's upload): the caller (or the server) has as many documents waiting to be read or being read as it may; `details.max_documents_reading`",
  },
  revision_mismatch: {
    status: 409,
    meaning:
      "PATCH /settings: `expected_revision` is not the current revision (someone changed the settings since); `details` is the current `{revision, settings}`",
  },
  prompt_limit_reached: {
    status: 409,
    meaning: "the caller already keeps the most prompts allowed (500): delete one first",
  },
  import_in_progress: { status: 409, meaning: "another POST /import is running; send again when it has finished" },
  sealed_request_replayed: {
    status: 409,
    meaning: "an end-to-end sealed relayed call with this request id was already run: a replay, refused",
  },
  too_many_share_links: {
    status: 409,
    meaning: "the chat already has the most live share links a chat may have (20); revoke one first",
  },
  too_many_shares: {
    status: 409,
    meaning: "the chat is already shared with the most people a chat may be shared with (20); unshare one first",
  },
  last_admin: {
    status: 409,
    meaning:
      "the change would leave the server without a live admin person: the last admin cannot be demoted or removed",
  },
  cursor_expired: {
    status: 410,
    meaning:
      "`since_id` (or the session's cursor) is older than the retained log, or `epoch` is not the store's: reload snapshots",
  },
  payload_too_large: {
    status: 413,
    meaning: "the body exceeds the route's body limit (POST /import: `import.max_bytes`)",
  },
  attachment_too_large: {
    status: 413,
    meaning: "the decoded attachment exceeds `assets.max_bytes`; `details` has both sizes",
  },
  audio_too_large: {
    status: 413,
    meaning:
      "POST /audio/transcriptions: the recording exceeds `speech.max_bytes` (refused from Content-Length before the body is read); `details.max_bytes`",
  },
  document_too_large: {
    status: 413,
    meaning:
      "POST /documents: the file exceeds `documents.max_bytes` (refused from Content-Length before the body is read); `details.max_bytes`",
  },
  share_snapshot_too_large: {
    status: 413,
    meaning:
      "POST /sessions/{id}/share-links: the chat's snapshot (its shown messages with their images) exceeds 8 MiB; `details.max_bytes`",
  },
  upload_part_too_large: {
    status: 413,
    meaning:
      "PUT /uploads/{id}/parts/{n}: the part is longer than it must be (`part_bytes`, or what is left for the last part); `details.expected_bytes`",
  },
  uri_too_long: { status: 414, meaning: "a route parameter exceeds 100 characters" },
  unsupported_media_type: {
    status: 415,
    meaning: "the body's content type is not one the route takes, or the bytes are not a PNG, JPEG, GIF or WebP image",
  },
  too_many_pages: {
    status: 422,
    meaning: "the document has more pages (or sections) than `documents.max_pages`; refused before any page is read",
  },
  document_unreadable: {
    status: 422,
    meaning: "the document cannot be read; `details.reason` is `encrypted` (a password), `corrupt` or `no_text`",
  },
  action_failed: { status: 422, meaning: "the action ran and threw; the message says why" },
  daily_limit_reached: {
    status: 429,
    meaning:
      "the caller's person has made `max_requests_per_day` requests today (UTC); `details.retry_after` (seconds, also the Retry-After header) says when the next is allowed",
  },
  rate_limited: {
    status: 429,
    meaning:
      "GET /shared/{token}: too many requests from this address in the window; `details.retry_after` (seconds, also the Retry-After header)",
  },
  headers_too_large: { status: 431, meaning: "the request headers exceed Node's 16 KiB limit (connection closed)" },
  // 5xx: the server's side
  internal_error: {
    status: 500,
    meaning: "the server failed to handle the request (logged); nothing about the input to fix",
  },
  invalid_action_result: {
    status: 500,
    meaning: "the action answered with a result its schema refuses; `details` lists the issues",
  },
  provider_error: {
    status: 502,
    meaning:
      "a speech backend (STT or TTS) answered an error, timed out or could not be reached; the message is the backend's own",
  },
  share_link_unavailable: {
    status: 503,
    meaning:
      "the bridge's GET /shared/{token}: no server linked to the bridge could say whether the link is live (none linked, none answered in time, or the bridge is fetching too many links at once); `Retry-After` says when to try again",
  },
  server_busy: {
    status: 503,
    meaning:
      "the server is receiving too many request bodies at once (in all, or from this person); the body was not read and the connection is closed; `details.retry_after` (seconds, also the Retry-After header) says when to send again",
  },
  shutting_down: { status: 503, meaning: "the server is shutting down; send again after it restarts" },
  insufficient_storage: {
    status: 507,
    meaning:
      "the server's disk is full (or over its quota): nothing of this upload or import was kept; free space and send again",
  },
} as const satisfies Record<string, HttpErrorRule>;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

type StatusesOf<Code extends HttpErrorCode> = (typeof HTTP_ERRORS)[Code]["status"] extends infer S
  ? S extends readonly number[]
    ? S[number]
    : S
  : never;

/** The codes answered with `Status`: what a constructor for that status may raise. */
export type HttpErrorCodeWith<Status extends number> = {
  [Code in HttpErrorCode]: Status extends StatusesOf<Code> ? Code : never;
}[HttpErrorCode];

/** Every status `code` is answered with, its usual one first. */
export function statusesOf(code: HttpErrorCode): readonly number[] {
  const { status } = HTTP_ERRORS[code] as HttpErrorRule;
  return typeof status === "number" ? [status] : status;
}

/** The status `code` is answered with (the first, for a code two routes answer differently). */
export function statusOf(code: HttpErrorCode): number {
  return statusesOf(code)[0]!;
}

export function isHttpErrorCode(code: string): code is HttpErrorCode {
  return Object.hasOwn(HTTP_ERRORS, code);
}
