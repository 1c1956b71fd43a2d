// JSON bodies: Fastify's own parser (it guards against prototype poisoning), except that an empty body with a
// JSON content type means "no body". Clients routinely send `Content-Type: application/json` on a POST whose
// body is optional (create session, fork, dismiss, cancel); that must not be a 400.
//
// Bodies nested deeper than MAX_JSON_DEPTH are refused here, for every route: the stores serialize what they keep
// with JSON.stringify, which overflows the stack on a few thousand levels, and no message, metadata or option
// needs more than a few. So is a body whose strings are not well-formed Unicode (well-formed-text.ts).
import type { FastifyInstance } from "fastify";
import { invalid } from "../errors.ts";
import { illFormedStringsRefusal } from "./well-formed-text.ts";

const MAX_JSON_DEPTH = 64;

export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    return parseJson(request, text, (error, value) => {
      if (error) return done(error);
      if (depthExceeds(value, MAX_JSON_DEPTH)) {
        return done(invalid("invalid_json", `the body is nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      }
      const illFormed = illFormedStringsRefusal(text, value);
      if (illFormed) return done(illFormed, undefined);
      return done(null, value);
    });
  });
}

/** Whether `value` has arrays or objects nested more than `limit` deep; iterative, so no input overflows it. */
function depthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(item))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

/** Whether a Content-Type is JSON (`application/json`, with or without parameters). */
export function isJson(contentType: string | undefined): boolean {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase() === "application/json";
}

/** The upload a JSON body names (`{upload_id, ...}`: checked by the route's schema), or undefined for other JSON, which
 *  a raw-bytes route then refuses as it refuses any type it does not take. */
export function namesUpload(contentType: string | undefined, body: unknown): boolean {
  return isJson(contentType) && typeof body === "object" && body !== null && "upload_id" in body;
}

/** Largest JSON a route that reads its own bytes parses (a `{upload_id}` body): anything longer is not one. */
const MAX_SMALL_JSON_BYTES = 4096;

/** A small JSON body a raw-bytes route was given (its scope's parser kept the bytes): parsed, or 400 invalid_json. */
export function jsonOf(body: unknown): unknown {
  if (!Buffer.isBuffer(body)) return body;
  if (body.length > MAX_SMALL_JSON_BYTES)
    throw invalid("invalid_json", `a JSON body here is at most ${MAX_SMALL_JSON_BYTES} bytes`);
  const text = body.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw invalid("invalid_json", "the body is not JSON");
  }
  const illFormed = illFormedStringsRefusal(text, value);
  if (illFormed) throw illFormed;
  return value;
}
