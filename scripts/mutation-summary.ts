// Prints the Markdown of docs/testing.md "Mutation score" from Stryker's JSON reports (reports/mutation/<group>.json,
// written by `npm run mutate`, or reports/mutation/mutation.json of a single `npx stryker run`): a row per mutated file, then every mutant that survived or had no covering test, with
// its line and replacement, for the page to say why it changes nothing or which test now kills it.
// Run: node --import tsx scripts/mutation-summary.ts [report.json ...]
import { readFileSync } from "node:fs";

interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

const DETECTED = new Set(["Killed", "Timeout"]);
const UNDETECTED = new Set(["Survived", "NoCoverage"]);

const paths = process.argv.length > 2 ? process.argv.slice(2) : ["reports/mutation/mutation.json"];
const files = Object.assign(
  {},
  ...paths.map((path) => (JSON.parse(readFileSync(path, "utf8")) as Report).files),
) as Report["files"];
const rows: string[] = [];
const open: string[] = [];
for (const [file, { source, mutants }] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
  const count = (statuses: Set<string> | string) =>
    mutants.filter((m) => (typeof statuses === "string" ? m.status === statuses : statuses.has(m.status))).length;
  const detected = count(DETECTED);
  const valid = detected + count(UNDETECTED);
  const score = valid === 0 ? "n/a" : ((100 * detected) / valid).toFixed(1);
  rows.push(
    `| \`${file}\` | ${mutants.length} | ${count("Killed")} | ${count("Timeout")} | ${count("Survived")} | ${count("NoCoverage")} | ${score} |`,
  );
  const lines = source.split("\n");
  for (const m of mutants.filter((m) => UNDETECTED.has(m.status))) {
    const { line } = m.location.start;
    const code = (lines[line - 1] ?? "").trim().slice(0, 90);
    const replacement = (m.replacement ?? "").replaceAll("\n", " ").slice(0, 60);
    open.push(`- \`${file}:${line}\` ${m.mutatorName} (${m.status}): \`${code}\` → \`${replacement}\``);
  }
}
console.log("| file | mutants | killed | timed out | survived | no coverage | score % |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
console.log("");
for (const line of open) console.log(line);
