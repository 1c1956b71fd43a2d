// The wire's schemas are built on first use, not when their module is evaluated (docs/app.md "Start-up", SU12): the
// app's start evaluates the whole client library, and building every event's, frame's and answer's schema then was
// most of that evaluation on a phone, before the first row could paint. Each module declares its schemas as before,
// wrapped in `lazySchema`; what a caller reads is a zod schema all the same (it parses, composes and types alike).
import { z } from "zod";

/** `build`'s value, made on the first call and the same one on every call after. */
export function onFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/**
 * A schema standing for `build`'s, which is built on the first parse through it (or the first look at its parts:
 * a discriminated union asks for its options' literal values on its first parse). It is zod's own `z.lazy`, so a
 * parse's result and its issues are the inner schema's; `unwrap()` gives that inner schema (built once), for a
 * schema that extends or picks from it.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): z.ZodLazy<T> {
  return z.lazy(onFirstUse(build));
}

/**
 * A family's schemas keyed by the name of their `type`, so that a reader looks one type up without building the
 * others (`narrow.ts`). The compiler holds each key to its schema's own `type` literal.
 */
export function byTypeName<R extends Record<string, z.ZodType>>(
  schemas: R & { [K in keyof R]: z.ZodType<{ type: K }> },
): R {
  return schemas;
}
