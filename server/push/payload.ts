// What a push carries to the service worker (docs/push.md "Payload"), encrypted to the subscription's keys. By
// default it holds no conversation text and no chat title (a title is often the first message): a reply says
// "New reply", a notification or an approval its record's title (producers write it; an approval's names the tool).
// A device that turned previews on also gets the record's body, or the chat's title and the reply's first words.
import { headOf } from "../../client/wire/whole-characters.ts";

export type PushType = "approval" | "notification" | "reply" | "done" | "revoked";

export interface PushPayload {
  /** Shape version, for a service worker older or newer than the server. */
  v: 1;
  type: PushType;
  /** The notification tag: a later push with the same tag replaces the shown one (record id, or chat for replies). */
  tag: string;
  title: string;
  body?: string;
  session_id?: string;
  notification_id?: string;
  /** The server could not tell whether this device had a live connection: skip showing it in a focused window. */
  skip_if_focused?: boolean;
}

/** Push services take about 4 KB of payload; text is cut well below that (JSON escaping can double it). */
export const PREVIEW_MAX_CHARS = 600;

export function previewText(text: string, max = PREVIEW_MAX_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${headOf(flat, max - 1)}…`;
}

export const REPLY_TITLE = "New reply";
export const REVOKED_TITLE = "This device was removed";
export const REVOKED_BODY = "Its saved chats were deleted from this device.";
