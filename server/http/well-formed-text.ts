// Every string a JSON body brings, value or key, is well-formed Unicode, on every route (docs/server.md "Route
// contracts"). JSON may spell a lone surrogate (`"\ud800"`), and JSON.parse makes it a string no store can keep:
// SQLite, files and push payloads are UTF-8, which writes U+FFFD in its place, so what was stored would differ from
// what the 200 answered and a limit in characters could be passed. Such a body is refused with 400 invalid_input
// naming the first bad string's path, before any route reads it.
//
// Cheap for the common case: the body's text was decoded from UTF-8 (an invalid byte became U+FFFD), so only a
// `\uD800`-`\uDFFF` escape can make a lone surrogate; a body without one is not walked.
import { LONE_SURROGATE } from "../../client/wire/whole-characters.ts";
import { invalid, type DomainError } from "../errors.ts";

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

/** A container being walked: its keys (an object's) or none (an array's), and the next child to look at. */
interface Frame {
  value: Record<string, unknown> | unknown[];
  keys: string[] | undefined;
  next: number;
}

/**
 * The path of the first string holding a lone surrogate, depth-first in order (an object's keys before its values); a
 * bad key ends the path itself, its surrogates written as U+FFFD. Iterative, and holding one frame per level of
 * nesting, not one entry per string: a body of millions of strings (13 MB of `""`) is walked in memory of its depth,
 * and a path is built only for the string found.
 */
export function firstIllFormedString(value: unknown): string[] | undefined {
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? [] : undefined;
  if (value === null || typeof value !== "object") return undefined;
  const stack: Frame[] = [];
  const enter = (container: object): string[] | undefined => {
    const frame = frameOf(container);
    const badKey = frame.keys?.find((key) => LONE_SURROGATE.test(key));
    if (badKey !== undefined) return [...pathOf(stack), badKey.replace(/\p{Cs}/gu, "\ufffd")];
    stack.push(frame);
    return undefined;
  };
  const atRoot = enter(value);
  if (atRoot) return atRoot;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next >= (frame.keys ?? (frame.value as unknown[])).length) {
      stack.pop();
      continue;
    }
    const child = frame.keys
      ? (frame.value as Record<string, unknown>)[frame.keys[frame.next]!]
      : (frame.value as unknown[])[frame.next];
    frame.next++;
    if (typeof child === "string") {
      if (LONE_SURROGATE.test(child)) return pathOf(stack);
    } else if (child !== null && typeof child === "object") {
      const found = enter(child);
      if (found) return found;
    }
  }
  return undefined;
}

function frameOf(container: object): Frame {
  return Array.isArray(container)
    ? { value: container, keys: undefined, next: 0 }
    : { value: container as Record<string, unknown>, keys: Object.keys(container), next: 0 };
}

/** The keys (or indices) leading to the child each frame looked at last. */
function pathOf(stack: readonly Frame[]): string[] {
  return stack.map((frame) => (frame.keys ? frame.keys[frame.next - 1]! : String(frame.next - 1)));
}
