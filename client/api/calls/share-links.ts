// The typed calls of the share links' routes (client/wire/routes/share-links.ts): a snapshot given out by a link.
import {
  createShareLinkRoute,
  listShareLinksRoute,
  revokeShareLinkRoute,
  sharedBlobRoute,
  type ShareLink,
  type ShareLinkCreated,
  type SharedBlob,
} from "../../wire/routes/share-links.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class ShareLinkCalls extends RouteCaller {
  /**
   * Makes a share link to a snapshot of the chat as it is now (owner only): `url` carries the key in its fragment
   * and is given out only here. `expiresIn` in seconds (default 7 days, at most 90).
   */
  async createShareLink(sessionId: string, expiresIn?: number): Promise<ShareLinkCreated> {
    const body = expiresIn === undefined ? {} : { expires_in: expiresIn };
    return this.call(createShareLinkRoute, { params: { session_id: sessionId }, body });
  }

  /** The chat's live share links (owner only), oldest first, without their keys. */
  async listShareLinks(sessionId: string): Promise<ShareLink[]> {
    return (await this.call(listShareLinksRoute, { params: { session_id: sessionId } })).links;
  }

  /** Revokes a share link: from now on it is 404 share_link_not_found on the server and the bridge. */
  async revokeShareLink(sessionId: string, token: string): Promise<void> {
    await this.call(revokeShareLinkRoute, { params: { session_id: sessionId, token } });
  }

  /** The sealed blob of a share link (no credentials needed); `openSharedLink` fetches and opens it in one step. */
  async fetchSharedBlob(token: string): Promise<SharedBlob> {
    return this.call(sharedBlobRoute, { params: { token } });
  }
}
