// Share links (docs/people.md "Share links"): the owner of a chat makes a link that shows a read-only snapshot of it
// to anyone who has the link, paired or not. The server seals the snapshot under a random key, keeps only the sealed
// blob and hands the key out once, inside the link's fragment (`<app url>#/shared/<token>.<key>`), which browsers
// never send to a server. `GET /shared/<token>` (no token, rate-limited per address; served by the server and by the
// bridge) answers the sealed blob; the library opens it with the fragment's key (client/sharing/open-link.ts).
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { messageSchema } from "../messages.ts";
import { sessionParams } from "./params.ts";
import { defineRoute, noContent } from "./route.ts";

/** At most this many live (not revoked, not expired) links a chat has. */
export const MAX_SHARE_LINKS = 20;
/** A link's life when `expires_in` is not given: 7 days, in seconds. */
export const DEFAULT_SHARE_LINK_SECONDS = 7 * 24 * 3600;
/** The longest life a link may be given: 90 days, in seconds. */
export const MAX_SHARE_LINK_SECONDS = 90 * 24 * 3600;
/** The largest snapshot (its JSON, images included as data URLs) a link may carry; a larger chat is refused. */
export const MAX_SHARE_SNAPSHOT_BYTES = 8 * 1024 * 1024;

/** 16 random bytes (128 bits), base64url without padding: 22 characters. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;
/** 32 random bytes (an XChaCha20-Poly1305 key), base64url without padding: 43 characters. */
export const SHARE_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The message of every 404 share_link_not_found of GET /shared/<token>, on the server and the bridge alike. */
export const SHARE_LINK_GONE_MESSAGE = "This link was revoked, has expired or never existed.";

export const shareTokenSchema = z.string().regex(SHARE_TOKEN_PATTERN, "a share link token (22 base64url characters)");

export const createShareLinkBody = lazySchema(() =>
  z.object({ expires_in: z.number().int().min(1).max(MAX_SHARE_LINK_SECONDS).optional() }).strict(),
);

export const shareLinkCreatedSchema = lazySchema(() =>
  z.object({
    /** `<app url>#/shared/<token>.<key>`: the only place the key is ever given out. */
    url: z.string(),
    token: z.string(),
    expires_at: z.string(),
  }),
);
export type ShareLinkCreated = z.infer<typeof shareLinkCreatedSchema>;

/** A live link as the chat's owner lists it: without its key, which the server no longer has. */
export const shareLinkSchema = lazySchema(() =>
  z.object({ token: z.string(), created_at: z.string(), expires_at: z.string() }),
);
export type ShareLink = z.infer<typeof shareLinkSchema>;

export const shareLinkListSchema = lazySchema(() => z.object({ links: z.array(shareLinkSchema) }));

/** What `GET /shared/<token>` answers: the snapshot sealed with XChaCha20-Poly1305, bound to the token. */
export const sharedBlobSchema = lazySchema(() =>
  z
    .object({
      v: z.literal(1),
      /** base64url, 24 bytes. */
      nonce: z.string().regex(/^[A-Za-z0-9_-]{32}$/),
      /** base64url: the snapshot's JSON (UTF-8) sealed, with its 16-byte tag. */
      ciphertext: z.string().regex(/^[A-Za-z0-9_-]+$/),
    })
    .strict(),
);
export type SharedBlob = z.infer<typeof sharedBlobSchema>;

/**
 * What a link shows once opened: the chat's shown messages when the link was made (no hidden versions), each with
 * its `metadata.sender` when it has one and its images in `metadata.attachments` as `image_data` entries (stored
 * assets become data URLs) or `image_url` entries; nothing else of the metadata.
 */
export const sharedSnapshotSchema = lazySchema(() =>
  z.object({
    v: z.literal(1),
    title: z.string(),
    owner_name: z.string().optional(),
    /** When the link was made (ISO 8601). */
    shared_at: z.string(),
    messages: z.array(messageSchema),
  }),
);
export type SharedSnapshot = z.infer<typeof sharedSnapshotSchema>;

const linkParams = lazySchema(() => sessionParams.unwrap().extend({ token: z.string().min(1).max(100) }));

export const createShareLinkRoute = defineRoute("POST", "/sessions/:session_id/share-links", () => ({
  params: sessionParams,
  body: createShareLinkBody,
  answer: shareLinkCreatedSchema,
  status: 201,
  errors: ["session_not_found", "share_access_denied", "too_many_share_links", "share_snapshot_too_large"],
}));

export const listShareLinksRoute = defineRoute("GET", "/sessions/:session_id/share-links", () => ({
  params: sessionParams,
  answer: shareLinkListSchema,
  errors: ["session_not_found", "share_access_denied"],
}));

export const revokeShareLinkRoute = defineRoute("DELETE", "/sessions/:session_id/share-links/:token", () => ({
  params: linkParams,
  answer: noContent,
  status: 204,
  errors: ["session_not_found", "share_access_denied", "share_link_not_found"],
}));

/** No token; unknown, revoked, expired and malformed tokens are all the same 404 share_link_not_found. */
export const sharedBlobRoute = defineRoute("GET", "/shared/:token", () => ({
  params: z.object({ token: z.string().max(100) }).strict(),
  answer: sharedBlobSchema,
  errors: ["share_link_not_found", "rate_limited"],
  open: true,
}));
