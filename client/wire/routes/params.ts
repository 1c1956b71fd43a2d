// The path parameters several route modules share (sessions, turns, sends, actions, notifications, export): a session
// id, and a message's index in the session, a non-negative integer written in decimal.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";

export const sessionParams = lazySchema(() => z.object({ session_id: z.string().min(1) }).strict());

export const messageParams = lazySchema(() =>
  z
    .object({
      session_id: z.string().min(1),
      index: z.string().regex(/^\d+$/, "index must be a non-negative integer").transform(Number),
    })
    .strict(),
);
