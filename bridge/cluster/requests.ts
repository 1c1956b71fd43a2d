// What one node asks another through its inbox (bridge/cluster/inbox.ts), validated on arrival.
import { z } from "zod";

export const answerEventSchema = z.enum(["pair_result", "api_result", "share_result"]);

export const inboxRequestSchema = z.discriminatedUnion("kind", [
  /** A frame for a server link the receiving node holds (pair_request, api_request, devices_seen, share_request). */
  z.object({
    kind: z.literal("to_server"),
    server_id: z.string(),
    event: z.enum(["pair_request", "api_request", "devices_seen", "share_request"]),
    payload: z.record(z.string(), z.unknown()),
  }),
  /** The server's answer to a request the receiving node forwarded. */
  z.object({
    kind: z.literal("answer"),
    server_id: z.string(),
    event: answerEventSchema,
    payload: z.record(z.string(), z.unknown()),
  }),
]);
export type InboxRequest = z.infer<typeof inboxRequestSchema>;
