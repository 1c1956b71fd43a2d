// The path of a relayed API call (frames.ts `api` and `api_request`, and a sealed call's inner request): one of this
// server's own routes with its query, checked on the bridge and again on the server before it runs (docs/bridge.md
// "The API relay"). Its own file beside relay-methods.ts: the rules of what a relayed call may ask for, apart from the
// frames that carry it.
import { z } from "zod";
import { LONE_SURROGATE } from "./whole-characters.ts";

/** Longest relayed path with its query (the HTTP API's own routes and queries are far shorter). */
export const RELAY_MAX_PATH_LENGTH = 2048;

/** Control characters (CR, LF, NUL, ...), backslashes and spaces have no place in a route's path or query. */
const UNSAFE_PATH_CHARACTERS = /[\u0000-\u0020\u007f\\]/;

/** The path part's segments, percent-decoded (`%2e%2e` is `..` too); undefined when a segment does not decode. */
function decodedSegments(path: string): string[] | undefined {
  const pathPart = path.split("?", 1)[0]!;
  try {
    return pathPart.split("/").map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/**
 * A path of this server's own HTTP API with its query: relative (`/` first, never `//` or a scheme), no `.` or `..`
 * segment (raw or percent-encoded), no control characters or lone surrogates, bounded.
 */
export const relayPathSchema = z
  .string()
  .min(1)
  .max(RELAY_MAX_PATH_LENGTH)
  .refine(
    (path) => path.startsWith("/") && !path.startsWith("//"),
    "path must be relative to the server: one leading /, no scheme or host",
  )
  .refine(
    (path) => !UNSAFE_PATH_CHARACTERS.test(path),
    "path must not contain control characters, spaces or backslashes",
  )
  // Over HTTP a path is bytes, and percent-decoding never makes a lone surrogate (a bad UTF-8 sequence is refused in
  // the path, kept as its %XX text in the query); a relayed path is a string, whose lone surrogate would reach a
  // route's parameters and query as it is (docs/server.md "Route contracts").
  .refine((path) => !LONE_SURROGATE.test(path), "path must be well-formed Unicode text (no lone surrogate)")
  .refine((path) => {
    const segments = decodedSegments(path);
    return (
      segments !== undefined &&
      segments.every((segment) => segment !== ".." && segment !== "." && !/[\u0000-\u001f\u007f/\\]/.test(segment))
    );
  }, "path must not contain . or .. segments or encoded separators and control characters");

/** Whether a relayed path asks for a long-poll (`wait_ms`): the live channel is the wait, it is never relayed. */
export function asksLongPoll(path: string): boolean {
  const query = path.includes("?") ? path.slice(path.indexOf("?") + 1) : "";
  return new URLSearchParams(query).has("wait_ms");
}
