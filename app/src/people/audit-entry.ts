// One audit log entry in plain words (docs/app.md "Audit log"): who acted (the admin token, or a person by name), what
// they did, whose chats or devices it concerned, and which chat: its title when the reading admin may see the chat
// (it is in their list), else only "a chat", so the log never tells an admin a title their own access would not.
import type { AuditEntry } from "../../../client/index.ts";
import { relativeTime } from "../state/time.ts";

export interface AuditLine {
  /** The entry's time as the server wrote it (ISO 8601). */
  at: string;
  /** "5 min ago", "yesterday". */
  when: string;
  /** The date and time to the second, in the reader's locale. */
  exact: string;
  actor: string;
  /** What was done, a verb phrase: "opened a chat of". */
  what: string;
  /** The person it concerned, or undefined for what concerned everyone (an export of everything, a settings change). */
  whose: string | undefined;
  /** Undefined when the entry is not about one chat; else its title, undefined when the reader may not see it. */
  chat: { title: string | undefined } | undefined;
}

export interface AuditNames {
  /** A person's name by id (removed people too), or undefined when the reader does not know them. */
  personName(personId: string): string | undefined;
  /** The title of a chat the reader may see, or undefined. */
  chatTitle(sessionId: string): string | undefined;
}

const ACTIONS: Readonly<Record<string, string>> = {
  admin_token_read: "opened a chat of",
  pairing_for_person: "made a pairing code for a device of",
  chats_transferred: "transferred a chat away from",
  chats_deleted: "deleted the chats of",
  person_removed: "removed",
  export_everything: "exported every chat on the server",
  settings_changed: "changed the providers, MCP servers or plugins",
};

export function describeAuditEntry(entry: AuditEntry, names: AuditNames, now: number): AuditLine {
  return {
    at: entry.at,
    when: relativeTime(entry.at, now),
    exact: exactTime(entry.at),
    actor: actorName(entry.actor, names),
    // An action a newer server records that this app does not know yet is shown as the server names it.
    what: ACTIONS[entry.action] ?? entry.action.replaceAll("_", " "),
    whose: entry.person_id === null ? undefined : (names.personName(entry.person_id) ?? "a removed person"),
    chat: entry.session_id === undefined ? undefined : { title: names.chatTitle(entry.session_id) },
  };
}

function actorName(actor: string, names: AuditNames): string {
  if (actor === "admin_token") return "The admin token";
  return names.personName(actor) ?? "A removed person";
}

function exactTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}
