// The people screens' failures as sentences: the codes the people routes answer with (client/wire/errors.ts) said
// plainly, anything else as the app says every failure (describeError).
import { ResponseError } from "../../../client/index.ts";
import { describeError } from "../state/errors.ts";

const PEOPLE_TEXTS: Readonly<Record<string, string>> = {
  last_admin: "This is the last admin: make someone else an admin first, then change or remove this person.",
  admin_required: "Only an admin can manage people.",
  person_not_found: "This person was removed meanwhile. The list is read again.",
  share_access_denied: "Only the chat's owner can do that.",
  cannot_share_with_owner: "The chat already belongs to this person.",
  too_many_shares: "A chat can be shared with at most 20 people.",
};

/** The sentence `texts` has for the server's error code, if any (the people screens' own wording of their refusals). */
export function codedText(texts: Readonly<Record<string, string>>, error: unknown): string | undefined {
  return error instanceof ResponseError && error.code !== undefined ? texts[error.code] : undefined;
}

export function peopleErrorText(error: unknown): string {
  return codedText(PEOPLE_TEXTS, error) ?? describeError(error);
}
