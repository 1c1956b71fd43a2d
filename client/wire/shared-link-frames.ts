// Share links served by the bridge (docs/bridge.md "Share links"): the bridge asks a server's link for a link's
// sealed blob part by part (`share_request`), and the server answers each with `share_result`. A blob (up to about
// 11 MiB of JSON text) does not fit in one frame (MAX_FRAME_BYTES), so it travels in parts of SHARE_PART_CHARS; every
// answer says whether the link is live now and how long the whole blob is, so a request at the blob's end (offset =
// total) is a liveness check that carries no bytes. The blob is JSON of base64url strings: ASCII, so its characters
// are its bytes.
import { z } from "zod";
import { SHARE_TOKEN_PATTERN } from "./routes/share-links.ts";

/** Characters of a blob one `share_result` carries at most: half a frame, far from MAX_FRAME_BYTES. */
export const SHARE_PART_CHARS = 512 * 1024;

/** Bridge → server `share_request`: the part of the link's blob that starts at `offset`. */
export const shareRequestSchema = z.strictObject({
  request_id: z.string().min(1).max(100),
  token: z.string().regex(SHARE_TOKEN_PATTERN),
  offset: z.number().int().min(0),
});
export type ShareRequest = z.infer<typeof shareRequestSchema>;

/** Server → bridge `share_result`: the part (empty at or past the end) of a live link's blob, or that none is live. */
export const shareResultSchema = z.discriminatedUnion("status", [
  z.strictObject({
    request_id: z.string().min(1).max(100),
    status: z.literal("found"),
    total: z.number().int().min(1),
    offset: z.number().int().min(0),
    text: z.string().max(SHARE_PART_CHARS),
  }),
  z.strictObject({ request_id: z.string().min(1).max(100), status: z.literal("not_found") }),
]);
export type ShareResult = z.infer<typeof shareResultSchema>;
