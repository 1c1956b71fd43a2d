// The notice the server posts on a person's devices when an audited action concerned them (key
// `audit:<action>:<chat or person id>`, docs/people.md "Audit"). Its body names the chat by id, which means nothing to
// a reader: the app says the chat's title instead (the person owns it, so it is in their list), and after a pairing
// code made for them, what to do if they did not ask for one.
import type { ClientRecord } from "../../../client/index.ts";

const AUDIT_KEY = /^audit:([a-z_]+):(.+)$/;

const ADVICE: Readonly<Record<string, string>> = {
  pairing_for_person: "If you did not ask for a new device, check Devices and remove any you do not know.",
};

/** The body to show for `record`: its own, unless it is an audit notice. */
export function noticeBody(
  record: Pick<ClientRecord, "key" | "body">,
  chatTitle: (sessionId: string) => string | undefined,
): string | undefined {
  const match = AUDIT_KEY.exec(record.key);
  if (!match) return record.body;
  const [, action = "", id = ""] = match;
  const advice = ADVICE[action];
  if (advice !== undefined) return advice;
  if (record.body !== `Chat ${id}`) return record.body;
  const title = chatTitle(id);
  return title === undefined ? undefined : `Chat: “${title}”`;
}
