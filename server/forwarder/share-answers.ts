// Answers the bridge's `share_request`s (docs/bridge.md "Share links"): a part of a live share link's sealed blob, or
// that no live link has the token, as `share_result`. The bridge asks on every read of a link it serves, so whether a
// link is live is decided here, by the same query as the server's own GET /shared/{token}: a link revoked, expired
// or ended with its chat is not found from the moment its revoke (or the deletion) is done. Only sealed bytes leave.
import { SHARE_PART_CHARS, shareRequestSchema } from "../../client/wire/shared-link-frames.ts";
import type { ServerContext } from "../context.ts";
import type { ShareLinkService } from "../sharing/share-link-service.ts";
import type { BridgeLink } from "./bridge-link.ts";

/** Answers the bridge's `share_request`s on `link` from the server's share links. */
export function serveShareLinks(ctx: Pick<ServerContext, "shareLinks" | "log">, link: BridgeLink): void {
  const answers = new ShareAnswers(ctx.shareLinks, link, ctx.log);
  link.on("share_request", (payload) => answers.answer(payload));
}

export class ShareAnswers {
  constructor(
    private readonly links: Pick<ShareLinkService, "blobPart">,
    private readonly link: Pick<BridgeLink, "send" | "isOpen">,
    private readonly log: ServerContext["log"],
  ) {}

  answer(payload: unknown): void {
    const request = shareRequestSchema.safeParse(payload);
    if (!request.success)
      return this.log.warn({ problem: request.error.issues[0]?.message }, "share_request not understood");
    const { request_id, token, offset } = request.data;
    let part;
    try {
      part = this.links.blobPart(token, offset, SHARE_PART_CHARS);
    } catch (error) {
      // SQLite busy or closing: no answer, and the bridge's wait ends in its timeout (the reader is told to retry).
      return this.log.error({ err: error }, "reading a share link's blob for the bridge failed");
    }
    if (!this.link.isOpen()) return;
    // Sent without a ref, like api_result: the bridge takes it or drops it, nothing to acknowledge.
    this.link.send(
      "share_result",
      part === undefined
        ? { request_id, status: "not_found" }
        : { request_id, status: "found", total: part.total, offset, text: part.text },
    );
  }
}
