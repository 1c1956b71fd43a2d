// Finds the error codes the source raises and the docs mention, by the spellings the project uses for them, so
// registry.test.ts can hold both against the registry. A code raised another way is a new spelling to add here.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Found {
  code: string;
  /** Where: `path:line`. */
  at: string;
  /** The HTTP status written beside it in a doc, when there is one. */
  status?: number;
}

/** Every .ts (or .md) file under `dir`, relative to the repository root. */
export function filesUnder(dir: string, extension: ".ts" | ".md"): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Each match of `patterns` in `files`: the group named `code`, or else the first group; the group named `status`. */
export function scan(files: readonly string[], patterns: readonly RegExp[]): Found[] {
  const found: Found[] = [];
  for (const file of files) {
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
    lines.forEach((line, index) => {
      for (const pattern of patterns) {
        for (const match of line.matchAll(new RegExp(pattern.source, "g"))) {
          const code = match.groups?.code ?? match[1]!;
          const status = match.groups?.status;
          found.push({ code, at: `${file}:${index + 1}`, ...(status ? { status: Number(status) } : {}) });
        }
      }
    });
  }
  return found;
}

const CODE = '"([a-z][a-z0-9_]*)"';

/** How the server raises an HTTP error code: its constructors, the error body, and the framework mapping tables. */
export const HTTP_RAISES = [
  new RegExp(
    `\\b(?:invalid|unauthenticated|forbidden|notFound|conflict|tooLargeError|unsupportedMedia|unprocessable|internal|unavailable)\\(\\s*${CODE}`,
  ),
  new RegExp(`new (?:HttpError)\\(\\s*(?:\\d+,\\s*)?${CODE}`),
  new RegExp(`new DomainError\\(\\s*"[a-z_]+",\\s*${CODE}`),
  new RegExp(`super\\(\\s*"[a-z_]+",\\s*${CODE}`),
  new RegExp(`\\b(?:errorBody|gone)\\(\\s*${CODE}`),
  new RegExp(`\\b(?:FST_ERR_[A-Z_]+|ERR_[A-Z_]+|HPE_[A-Z_]+):\\s*${CODE}`),
  // The error body written by hand (the bridge's plain HTTP) and the older {status, code} tables; zod's own
  // issue code "custom" is not ours.
  new RegExp(`\\bcode:\\s*(?!"custom")${CODE}`),
];

/** How the bridge (and the server's side of the pairing exchange) refuses a join or a push. */
export const BRIDGE_RAISES = [/\breason: "([a-z][a-z_ ]*)"/, /\b(?:refuse|refused|fail)\("([a-z][a-z_ ]*)"/];

/** A channel handler's refusal chosen by a helper (`registrationRefusal`): its returned literals. */
export const CHANNEL_RETURNS = [/\breturn "([a-z][a-z_ ]*)";/];

/** How the client library fails a pairing of its own. */
export const LIBRARY_RAISES = [/new PairingError\("([a-z][a-z_]*)"\)/];

/** How the docs name an HTTP code: beside its status (`404 \`session_not_found\``), or in an error body. */
export const HTTP_DOCUMENTED = [
  /\b(?<status>4[0-5]\d|50\d)\*{0,2} `(?<code>[a-z][a-z0-9_]*)`/,
  /"code": "([a-z][a-z0-9_]*)"/,
];

/** How the docs name a bridge reason: refused or answered with it, or in a reply payload. */
export const BRIDGE_DOCUMENTED = [/\b(?:refused|answered) `([a-z][a-z_ ]*)`/, /reason: "([a-z][a-z_ ]*)"/];
