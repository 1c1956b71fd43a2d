// The one error body of every non-2xx HTTP answer (DESIGN.md "Errors"), except a dismiss's 409.
import { z } from "zod";

export const errorBodySchema = z.object({
  error: z.object({
    code: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
