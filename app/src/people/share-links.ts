// Share links in words (docs/app.md "Share links"): the lives a link may be given, how a live link is listed, and the
// share-link failures said plainly. No page needed: test/app-state/share-links.test.ts checks them.
import { DEFAULT_SHARE_LINK_SECONDS, type ShareLink } from "../../../client/index.ts";
import { relativeTime } from "../state/time.ts";
import { codedText, peopleErrorText } from "./people-errors.ts";

const DAY = 24 * 3600;

/** The choices of a link's life, in seconds; the server's default (7 days) is the one picked first. */
export const LINK_LIVES = [
  { seconds: DAY, label: "1 day" },
  { seconds: 7 * DAY, label: "7 days" },
  { seconds: 30 * DAY, label: "30 days" },
  { seconds: 90 * DAY, label: "90 days" },
] as const;
export const DEFAULT_LINK_LIFE = DEFAULT_SHARE_LINK_SECONDS;

/** "Made 5 minutes ago · expires in 7 days": a live link, as its owner's list shows it (its key is not kept). */
export function describeLink(link: Pick<ShareLink, "created_at" | "expires_at">, now: number): string {
  return `Made ${relativeTime(link.created_at, now)} · expires ${relativeTime(link.expires_at, now)}`;
}

const LINK_TEXTS: Readonly<Record<string, string>> = {
  too_many_share_links: "This chat already has 20 live links: revoke one first.",
  share_snapshot_too_large: "This chat is too large to share as a link (its images count too).",
  share_link_not_found: "This link was already revoked or has expired.",
  share_access_denied: "Only the chat's owner makes and revokes its links.",
  rate_limited: "Too many tries from this address: wait a minute and try again.",
  share_link_unavailable: "The chat's server cannot be reached from here right now: try again in a moment.",
};

export function shareLinkErrorText(error: unknown): string {
  return codedText(LINK_TEXTS, error) ?? peopleErrorText(error);
}
