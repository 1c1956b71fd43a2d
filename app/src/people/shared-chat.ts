// Opening a share link in the app (docs/app.md "A shared chat"): the sealed snapshot is asked of the origin the app
// was served from (the server or the bridge both answer `GET /shared/<token>`), and opened with the key the address's
// fragment carries, which never leaves the page. No pairing is involved. What can come of it, as a state:
//
//   loading ──► ready {snapshot}
//           ├─► gone      (404 share_link_not_found: revoked, expired or never existed; a malformed link too)
//           ├─► damaged   (the key does not open the snapshot: the link was cut or changed)
//           └─► failed    (unreachable, rate-limited, anything else: said, and tried again on reload)
import {
  openSharedLink,
  parseSharedLink,
  ResponseError,
  SharedLinkError,
  type SharedSnapshot,
} from "../../../client/index.ts";
import type { AppEnv } from "../state/env.ts";
import { describeError } from "../state/errors.ts";
import { shareLinkErrorText } from "./share-links.ts";

export type SharedChatState =
  | { state: "loading" }
  | { state: "ready"; snapshot: SharedSnapshot }
  | { state: "gone" }
  | { state: "damaged" }
  | { state: "failed"; message: string };

export const GONE_TEXT = "This link was revoked, has expired or never existed.";
export const DAMAGED_TEXT = "This link is damaged: its key does not open the chat. Ask for the link again.";

/** `link`: the route's `<token>.<key>`. */
export async function openSharedChat(link: string, env: Pick<AppEnv, "fetch" | "location">): Promise<SharedChatState> {
  if (!parseSharedLink(link)) return { state: "gone" };
  try {
    const snapshot = await openSharedLink(link, { baseUrl: env.location.origin, fetch: env.fetch });
    return { state: "ready", snapshot };
  } catch (error) {
    if (error instanceof ResponseError && error.code === "share_link_not_found") return { state: "gone" };
    if (error instanceof SharedLinkError) return { state: "damaged" };
    return { state: "failed", message: failureText(error) };
  }
}

function failureText(error: unknown): string {
  if (error instanceof ResponseError) return shareLinkErrorText(error);
  return `The chat could not be loaded: ${describeError(error)}`;
}
