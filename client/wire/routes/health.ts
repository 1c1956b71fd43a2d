// GET /health (no token): the server answers.
import { z } from "zod";
import { defineRoute } from "./route.ts";

export const healthRoute = defineRoute("GET", "/health", () => ({
  answer: z.object({ ok: z.literal(true) }),
  open: true,
}));
