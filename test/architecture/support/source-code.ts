// The project's source as the architecture tests read it: the .ts/.tsx files below a folder, their text with
// comments blanked (a comment may name what the code may not do), and `file:line` of each match of a pattern.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

const SKIPPED = new Set(["node_modules", "dist"]);

/** Every .ts and .tsx file below `dir` (absolute paths). */
export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** A file's text with comments blanked (line numbers kept). */
export function code(file: string): string {
  return readFileSync(file, "utf8").replace(/\/\*[^]*?\*\/|\/\/[^\n]*/g, (comment) => comment.replace(/[^\n]/g, " "));
}

/** `file:line` (relative to the root) of every match of `pattern` in the code of the given folders. */
export function findIn(folders: readonly string[], pattern: RegExp): string[] {
  return folders.flatMap((folder) =>
    sourceFiles(join(ROOT, folder)).flatMap((file) => {
      const text = code(file);
      return [
        ...text.matchAll(new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : pattern.flags + "g")),
      ].map((match) => `${relative(ROOT, file)}:${text.slice(0, match.index).split("\n").length}`);
    }),
  );
}

export const withoutLine = (at: string) => at.replace(/:\d+$/, "");
