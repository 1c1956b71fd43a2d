// GET /health (no token): the server answers.
import { z } from "zod";
import { defineRoute } from "./route.ts";

export const healthRoute = defineRoute({
  method: "GET",
  path: "/health",
  answer: z.object({ ok: z.literal(true) }),
  status: 200,
  errors: [],
  open: true,
});
