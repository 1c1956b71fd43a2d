// Query and path values arrive as strings from a URL; the library may give numbers. One spelling of each kind of
// value, so every route reads an integer or a flag the same way.
import { z } from "zod";
import { lazySchema } from "../built-on-first-use.ts";

/** A decimal integer from `min` to `max`: a number from the library, or its digits from a URL. */
export function integerParam(name: string, min: number, max: number) {
  const message = `${name} must be an integer from ${min} to ${max}`;
  return z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,15}$/, message)
        .transform(Number),
    ])
    .pipe(z.number().int(message).min(min, message).max(max, message));
}

/** `true`/`false` in a URL, or a boolean from the library. */
export const booleanParam = lazySchema(() =>
  z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]),
);
