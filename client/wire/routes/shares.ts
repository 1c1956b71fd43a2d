// Sharing a chat with a person (docs/people.md "Sharing"): the owner gives a live person `read` or `write` access (at
// most MAX_SHARES per chat; sharing again changes the access) and takes it away. The person's devices learn it by
// `session_access_granted` and `session_access_revoked`.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";
import { sessionEnvelopeSchema } from "../api.ts";
import { sessionShareSchema } from "../messages.ts";
import { sessionParams } from "./params.ts";
import { defineRoute, noContent } from "./route.ts";

/** At most this many people a chat is shared with. */
export const MAX_SHARES = 20;

export const shareAccessSchema = lazySchema(() => sessionShareSchema.unwrap().shape.access);
export type ShareAccess = z.infer<typeof shareAccessSchema>;

export const shareSessionRoute = defineRoute("POST", "/sessions/:session_id/shares", () => ({
  params: sessionParams,
  body: z.object({ person_id: z.string().min(1).max(100), access: shareAccessSchema }).strict(),
  answer: sessionEnvelopeSchema,
  errors: [
    "session_not_found",
    "share_access_denied",
    "cannot_share_with_owner",
    "person_not_found",
    "too_many_shares",
  ],
}));

export const unshareSessionRoute = defineRoute("DELETE", "/sessions/:session_id/shares/:person_id", () => ({
  params: sessionParams.unwrap().extend({ person_id: z.string().min(1).max(100) }),
  answer: noContent,
  status: 204,
  errors: ["session_not_found", "share_access_denied", "person_not_found"],
}));
