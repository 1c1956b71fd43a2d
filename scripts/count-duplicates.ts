// Counts the pairs of places that share six or more lines (docs/testing.md "Duplicates"), import lists aside, with the
// `duplicates` command (on this machine's PATH; it reads the tracked files as text and writes nothing). The command
// passes over one-line imports but not the names of an import list broken over several lines, so a pair whose
// named run, its import declarations left out, is under six lines on either side, and that shares no other run
// outside import declarations (the command asked again over the two files with those blanked), is an import list
// and not counted. Usage: node --import tsx scripts/count-duplicates.ts [--list] [--check]
// (`npm run check:duplicates`: exits 1 above CEILING). Not part of `npm test`: the command is this machine's, not a
// package a fresh clone installs.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";

const execFileAsync = promisify(execFile);
const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
/** How many shared lines make a pair (the command's default). */
const MIN_LINES = 6;
/** The command lists at most this many rows; past it, the count is the header's and rows go unclassified. */
const MOST_ROWS = 200;
/** Today's count; lower it when a clean-up lands, never raise it (the goal is under 60). */
export const CEILING = 52;

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

/** Counts the pairs in `output` (the command's answer), reading the named files from `root`. A pair whose named run
 *  is an import list but that shares more runs is asked of `sharesBeyondImports`: without it, such a pair counts. */
export function countPairs(
  output: string,
  read = (file: string) => readFileSync(join(ROOT, file), "utf8"),
  sharesBeyondImports?: (pair: DuplicatePair) => boolean,
) {
  const { pairs, rows } = parseRows(output);
  const importLists = rows.filter(
    (pair) =>
      pair.places.some((place) => inImports(place, read)) &&
      (!pair.moreRuns || (sharesBeyondImports !== undefined && !sharesBeyondImports(pair))),
  );
  return { pairs, importLists, counted: pairs - importLists.length, rows };
}

/** The text with every import declaration's lines left blank, so the other lines keep their numbers. */
export function withoutImports(file: string, text: string): string {
  const spans = importSpans(file, text);
  return text
    .split("\n")
    .map((line, i) => (spans.some(([a, b]) => a <= i + 1 && i + 1 <= b) ? "" : line))
    .join("\n");
}

/** Whether the pair's two files, their import declarations blanked, still share a run: the command asked again over
 *  copies of just those two files, in a temporary folder. */
async function sharesOutsideImports(pair: DuplicatePair): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), "duplicates-"));
  try {
    const files = [...new Set(pair.places.map((place) => place.file))];
    files.forEach((file, i) => {
      mkdirSync(join(dir, String(i)));
      writeFileSync(join(dir, String(i), basename(file)), withoutImports(file, readFileSync(join(ROOT, file), "utf8")));
    });
    const { stdout } = await execFileAsync("duplicates", ["--repo", dir, "--most", "1"], { encoding: "utf8" });
    return parseRows(stdout).pairs > 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the command over the repository and counts; the pairs named by an import list with more runs are asked
 *  again, all at once (the command mostly waits). */
export async function countDuplicates(): Promise<DuplicateCount> {
  const output = execFileSync("duplicates", ["--repo", ROOT, "--most", String(MOST_ROWS), "--seconds", "120"], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  if (/^incomplete:/m.test(output)) throw new Error(`duplicates did not read the whole tree:\n${output}`);
  const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
  const asked = parseRows(output).rows.filter(
    (pair) => pair.moreRuns && pair.places.some((place) => inImports(place, read)),
  );
  const answers = await Promise.all(asked.map(sharesOutsideImports));
  const sharing = new Set(asked.filter((_, i) => answers[i]));
  return countPairs(output, read, (pair) => [...sharing].some((shared) => shared.row === pair.row));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const count = await countDuplicates();
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
