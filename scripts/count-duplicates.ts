// Counts the pairs of places that share six or more lines (docs/testing.md "Duplicates"), import lists aside, with the
// `duplicates` command (on this machine's PATH; it reads the tracked files as text and writes nothing). The command
// passes over one-line imports but not the names of an import list broken over several lines, so a pair whose
// named run, its import declarations left out, is under six lines on either side, and that shares no other run, is
// an import list and not counted. Usage: node --import tsx scripts/count-duplicates.ts [--list] [--check]
// (`npm run check:duplicates`: exits 1 above CEILING). Not part of `npm test`: the command is this machine's, not a
// package a fresh clone installs.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
/** How many shared lines make a pair (the command's default). */
const MIN_LINES = 6;
/** The command lists at most this many rows; past it, the count is the header's and rows go unclassified. */
const MOST_ROWS = 200;
/** Today's count; lower it when a clean-up lands, never raise it (the goal is under 60). */
export const CEILING = 173;

export interface Place {
  file: string;
  from: number;
  to: number;
}

export interface DuplicatePair {
  row: string;
  places: [Place, Place];
  /** The pair shares other runs than the one named. */
  moreRuns: boolean;
}

export interface DuplicateCount {
  /** Every pair the command found. */
  pairs: number;
  /** Pairs that are only a shared import list. */
  importLists: DuplicatePair[];
  /** pairs - importLists: the figure held under a ceiling. */
  counted: number;
  rows: DuplicatePair[];
}

const ROW = /^D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)(.*)$/;

/** The rows of the command's answer, each with its two places. */
export function parseRows(output: string): { pairs: number; rows: DuplicatePair[] } {
  const header = /^(\d+) pairs? of places/m.exec(output);
  const pairs = header ? Number(header[1]) : /^no duplicates/m.test(output) ? 0 : NaN;
  if (Number.isNaN(pairs)) throw new Error(`duplicates answered without a count:\n${output}`);
  const rows = output.split("\n").flatMap((line): DuplicatePair[] => {
    const m = ROW.exec(line);
    if (!m) return [];
    const place = (file: string, from: string, to: string): Place => ({ file, from: Number(from), to: Number(to) });
    const places: [Place, Place] = [place(m[1]!, m[2]!, m[3]!), place(m[4]!, m[5]!, m[6]!)];
    return [{ row: line, places, moreRuns: /\(\+\d+ more runs?\)/.test(m[7]!) }];
  });
  return { pairs, rows };
}

/** The 1-based line spans of a file's import declarations. */
export function importSpans(file: string, text: string): Array<[number, number]> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  return source.statements
    .filter((statement) => ts.isImportDeclaration(statement))
    .map((statement) => [lineOf(statement.getStart(source)), lineOf(statement.getEnd())]);
}

/** Whether the place is an import list: without the lines of import declarations, fewer than six lines are left. */
function inImports(place: Place, read: (file: string) => string): boolean {
  if (!/\.[cm]?[jt]sx?$/.test(place.file)) return false;
  const spans = importSpans(place.file, read(place.file));
  let outside = 0;
  for (let line = place.from; line <= place.to; line++) if (!spans.some(([a, b]) => a <= line && line <= b)) outside++;
  return outside < MIN_LINES;
}

/** Counts the pairs in `output` (the command's answer), reading the named files from `root`. */
export function countPairs(output: string, read = (file: string) => readFileSync(join(ROOT, file), "utf8")) {
  const { pairs, rows } = parseRows(output);
  const importLists = rows.filter((pair) => !pair.moreRuns && pair.places.some((place) => inImports(place, read)));
  return { pairs, importLists, counted: pairs - importLists.length, rows };
}

/** Runs the command over the repository and counts. */
export function countDuplicates(): DuplicateCount {
  const output = execFileSync("duplicates", ["--repo", ROOT, "--most", String(MOST_ROWS), "--seconds", "120"], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (/^incomplete:/m.test(output)) throw new Error(`duplicates did not read the whole tree:\n${output}`);
  return countPairs(output);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const count = countDuplicates();
  if (process.argv.includes("--list")) {
    const skipped = new Set(count.importLists);
    for (const pair of count.rows) console.log(`${skipped.has(pair) ? "(import list) " : ""}${pair.row}`);
  }
  console.log(
    `${count.counted} duplicated pairs of 6 lines or more (${count.pairs} found, ${count.importLists.length} import lists aside)`,
  );
  if (process.argv.includes("--check") && count.counted > CEILING) {
    console.error(`above the ceiling of ${CEILING}: move the new copy into a support file (--list names every pair)`);
    process.exitCode = 1;
  }
}
