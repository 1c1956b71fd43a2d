// The methods the API relay carries (frames.ts `api`, and a sealed call's inner request, e2e.ts): the ones the HTTP API
// routes for devices. PUT goes to one route alone, an upload's part (docs/uploads.md), so no other PUT reaches a
// route through the relay.
import { z } from "zod";

/** Methods an app may relay: the ones the HTTP API routes for devices (PUT for an upload's part alone). */
export const relayMethodSchema = z.enum(["GET", "POST", "PATCH", "DELETE", "PUT"]);
export type RelayMethod = z.infer<typeof relayMethodSchema>;

/** The one route of the HTTP API that takes PUT: an upload's part (docs/uploads.md). */
const PUT_PATH = /^\/uploads\/[^/?#]+\/parts\/[^/?#]+$/;

/** Whether a relayed call's method fits its path: PUT only for an upload's part, so no other PUT reaches a route. */
export function relayMethodFits(call: { method: string; path: string }): boolean {
  return call.method !== "PUT" || PUT_PATH.test(call.path);
}
export const PUT_ONLY_FOR_PARTS = { message: "PUT is relayed only for an upload's part", path: ["method"] };
