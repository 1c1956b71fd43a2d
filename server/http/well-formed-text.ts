// Every string a JSON body brings, value or key, is well-formed Unicode, on every route (docs/server.md "Route
// contracts"). JSON may spell a lone surrogate (`"\ud800"`), and JSON.parse makes it a string no store can keep:
// SQLite, files and push payloads are UTF-8, which writes U+FFFD in its place, so what was stored would differ from
// what the 200 answered and a limit in characters could be passed. Such a body is refused with 400 invalid_input
// naming the first bad string's path, before any route reads it.
//
// Cheap for the common case: the body's text was decoded from UTF-8 (an invalid byte became U+FFFD), so only a
// `\uD800`-`\uDFFF` escape can make a lone surrogate; a body without one is not walked.
import { invalid, type DomainError } from "../errors.ts";

/** A surrogate standing alone: under the `u` flag a well-formed pair is one code point, not matched. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The JSON escape of a surrogate (a well-formed pair is two of them, which the walk then lets through). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The refusal (400 invalid_input) of a parsed JSON body whose text `json` spells a lone surrogate in a value or a
 *  key; undefined when every string is well-formed. */
export function illFormedStringsRefusal(json: string, value: unknown): DomainError | undefined {
  if (!SURROGATE_ESCAPE.test(json)) return undefined;
  const path = firstIllFormedString(value);
  if (path === undefined) return undefined;
  const where = ["body", ...path].join(".");
  const message = "is not well-formed Unicode text (it holds a lone surrogate)";
  return invalid("invalid_input", `${where}: ${message}`, [{ path: where, message }]);
}

interface Pending {
  value: unknown;
  path: string[];
}

/** The path of the first string holding a lone surrogate, depth-first in order (an object's keys before its values); a
 *  bad key ends the path itself, its surrogates written as U+FFFD. Iterative: no nesting overflows it. */
export function firstIllFormedString(value: unknown): string[] | undefined {
  const stack: Pending[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: item, path } = stack.pop()!;
    if (typeof item === "string") {
      if (LONE_SURROGATE.test(item)) return path;
      continue;
    }
    if (item === null || typeof item !== "object") continue;
    const entries = Object.entries(item);
    for (const [key] of entries) if (LONE_SURROGATE.test(key)) return [...path, key.replace(/\p{Cs}/gu, "\ufffd")];
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index]!;
      if (typeof child === "string" || (child !== null && typeof child === "object"))
        stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}
