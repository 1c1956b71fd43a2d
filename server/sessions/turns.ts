// What regenerate, edit-and-resend and the version switch do to a session's shown path (docs/sessions.md
// "Versions"), with the refusals a caller can fix. The branch bookkeeping itself is turn-versions.ts.
import type { Message } from "../../client/wire/index.ts";
import { invalid, notFound } from "../errors.ts";
import { branchTurn, showVersion, turnStart } from "./turn-versions.ts";

/**
 * The last turn answered again: its user message (with its attachments, under the new request's id) starts a new
 * version and the replies it had become the previous one. A turn with no reply kept (its request failed before
 * any text) is retried in place: there is nothing to keep as a version.
 */
export function regenerated(messages: readonly Message[], requestId: string): Message[] {
  const start = turnStart(messages, messages.length - 1);
  if (start === undefined) {
    throw invalid("invalid_input", "the session has no user message to answer again", [
      { path: "session.messages", message: "no user message" },
    ]);
  }
  const user = messages[start]!;
  const first: Message = { ...user, metadata: { ...user.metadata, request_id: requestId } };
  return branchTurn(messages, start, first, start < messages.length - 1);
}

/**
 * The user message at `index` edited to `content` and sent again: a new version of its turn, whose earlier version
 * (that message and everything after it) stays reachable. The message's attachments go with the new version.
 */
export function resent(messages: readonly Message[], index: number, content: string, requestId: string): Message[] {
  const target = messages[index];
  if (!target)
    throw notFound("message_not_found", `the session has no message at index ${index} (it has ${messages.length})`);
  if (target.role !== "user") {
    throw invalid(
      "invalid_input",
      `message ${index} is a ${target.role} message; only a user message can be edited and sent again`,
      [{ path: "params.index", message: "not a user message" }],
    );
  }
  const attachments = target.metadata?.attachments;
  if (content.trim() === "" && !Array.isArray(attachments)) {
    throw invalid("invalid_input", "content must not be empty", [
      { path: "body.content", message: "must not be empty" },
    ]);
  }
  const first: Message = {
    role: "user",
    content,
    metadata: { request_id: requestId, ...(Array.isArray(attachments) ? { attachments } : {}) },
  };
  return branchTurn(messages, index, first, true);
}

/** The shown path with `version` of the turn holding message `index`; the same list when it is already shown. */
export function switched(messages: readonly Message[], index: number, version: number): Message[] {
  if (!messages[index])
    throw notFound("message_not_found", `the session has no message at index ${index} (it has ${messages.length})`);
  const start = turnStart(messages, index);
  const versions = start === undefined ? 1 : (messages[start]!.versions ?? 1);
  const next = start === undefined ? undefined : showVersion(messages, start, version);
  if (!next) {
    throw invalid(
      "invalid_input",
      `the turn of message ${index} has ${versions} version(s); there is no version ${version}`,
      [{ path: "body.version", message: `must be between 1 and ${versions}` }],
    );
  }
  return next;
}
