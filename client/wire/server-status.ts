// Whether the server behind a bridge topic is reachable (docs/client.md "Server status"). The bridge answers an
// `events:server:<id>` join with `server_online`, and pushes `server_status` on that topic whenever the server's
// link goes up or down, so an app never reads "Live" while nothing can reach it.
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";

/** The push named `server_status` on `events:server:<id>`. `since` is when the link last changed (ISO 8601). */
export const serverStatusSchema = lazySchema(() => z.object({ online: z.boolean(), since: z.string().min(1).max(64) }));
export type ServerStatus = z.infer<typeof serverStatusSchema>;

export const SERVER_STATUS_EVENT = "server_status";
