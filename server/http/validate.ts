// zod at the HTTP boundary: a failed parse is an `invalid` DomainError (400) whose details list each issue's
// path and message, the same error a service throws for input it refuses, so invalid_input has one spelling.
import type { z } from "zod";
import { invalid } from "../errors.ts";

export type InputPart = "body" | "query" | "params";

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, part: InputPart): z.output<S> {
  const result = schema.safeParse(value ?? (part === "body" ? undefined : {}));
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
  const first = details[0]!;
  throw invalid("invalid_input", `${first.path}: ${first.message}`, details);
}
