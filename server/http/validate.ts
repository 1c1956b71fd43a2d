// zod at the HTTP boundary: a failed parse is a 400 whose details list each issue's path and message.
import type { z } from "zod";
import { HttpError } from "./errors.ts";

export type InputPart = "body" | "query" | "params";

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, part: InputPart): z.output<S> {
  const result = schema.safeParse(value ?? (part === "body" ? undefined : {}));
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({ path: [part, ...issue.path.map(String)].join("."), message: issue.message }));
  const first = details[0]!;
  throw new HttpError(400, "invalid_input", `${first.path}: ${first.message}`, details);
}
