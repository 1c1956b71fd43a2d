// Answering an approval, and what its card shows of the arguments (loaded with the card, not with the app).
import { notificationRecordSchema, ResponseError, type ChatClient } from "../../../client/index.ts";
import type { Badge } from "../state/connection-status.ts";
import { describeError } from "../state/errors.ts";
import type { Approval } from "./approval.ts";

/** A JSON line whose string value is longer than this is folded behind a "Show all" toggle. */
export const FOLD_CHARS = 160;

export interface ArgumentLine {
  text: string;
  /** The whole line when `text` was cut. */
  full?: string;
}

/** Pretty JSON cut into lines, a long value folded to its first FOLD_CHARS characters. */
export function argumentLines(text: string): ArgumentLine[] {
  return text
    .split("\n")
    .map((line) => (line.length > FOLD_CHARS ? { text: `${line.slice(0, FOLD_CHARS)}…`, full: line } : { text: line }));
}

export type Answer = { response: "approve" } | { response: "deny"; message?: string };

/** Answers the approval at the revision shown; goes through the bridge relay when the client does (every call does). */
export async function respondToApproval(client: ChatClient, approval: Approval, answer: Answer): Promise<void> {
  const { record } = approval;
  const body = { ...answer, ...(record.revision !== undefined ? { expected_revision: record.revision } : {}) };
  await client.respondToInteraction(record.session_id ?? "", record.id, body);
}

/** One sentence for a failed answer: 409 says the approval is no longer open (and why, from the record). */
export function answerFailureText(error: unknown, badge: Badge | undefined): string {
  if (error instanceof ResponseError && error.status === 409) {
    const status = notificationRecordSchema.safeParse(error.body).data?.status;
    if (status === "expired") return "This approval has expired: nobody answered in time, so the tool was not run.";
    if (status === "cancelled") return "This approval was cancelled: the reply was stopped.";
    return "This approval was already answered (perhaps on another device).";
  }
  if (error instanceof ResponseError && error.status === 404) return "This approval no longer exists on the server.";
  return `The answer was not sent: ${describeError(error, badge)}`;
}
