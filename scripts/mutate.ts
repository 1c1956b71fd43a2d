// `npm run mutate`: Stryker over the security-critical files, one group of vitest.mutation.config.ts at a time, each
// run loading only that group's tests (MUTATION_GROUP). Each group's JSON report is kept as
// reports/mutation/<group>.json (scripts/mutation-summary.ts prints the docs/testing.md table from them), and a line
// per group says how long it took. Exits non-zero when a group's score is under stryker.config.json's break threshold
// or a file stryker.config.json mutates belongs to no group.
// Usage: node --import tsx scripts/mutate.ts [group ...] [--concurrency N]   (groups: every group when none is named)
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, statSync } from "node:fs";
import { MUTATION_GROUPS } from "../vitest.mutation.config.ts";

const CONFIG = JSON.parse(readFileSync("stryker.config.json", "utf8")) as { mutate: string[] };
const REPORT = "reports/mutation/mutation.json";

function parseArgs(argv: string[]): { groups: string[]; concurrency: string | undefined } {
  const at = argv.indexOf("--concurrency");
  const concurrency = at >= 0 ? argv[at + 1] : undefined;
  const named = argv.filter((arg, i) => arg !== "--concurrency" && (at < 0 || i !== at + 1));
  for (const name of named) if (!(name in MUTATION_GROUPS)) throw new Error(`no mutation group "${name}"`);
  return { groups: named.length > 0 ? named : Object.keys(MUTATION_GROUPS), concurrency };
}

/** Every glob stryker.config.json mutates must be some group's, or `npm run mutate` would silently skip it. */
function ungrouped(): string[] {
  const grouped = new Set(Object.values(MUTATION_GROUPS).flatMap((group) => group.mutate));
  return CONFIG.mutate.filter((glob) => !grouped.has(glob));
}

function runGroup(name: string, concurrency: string | undefined): number | null {
  const started = Date.now();
  const args = ["stryker", "run", "--mutate", MUTATION_GROUPS[name]!.mutate.join(",")];
  if (concurrency !== undefined) args.push("--concurrency", concurrency);
  const result = spawnSync("npx", args, { stdio: "inherit", env: { ...process.env, MUTATION_GROUP: name } });
  // A run that ended before its report (a failed initial test run) leaves the previous group's: not copied.
  if (existsSync(REPORT) && statSync(REPORT).mtimeMs >= started) copyFileSync(REPORT, `reports/mutation/${name}.json`);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(JSON.stringify({ group: name, exit: result.status, minutes: Number(minutes) }));
  return result.status;
}

const missing = ungrouped();
if (missing.length > 0) {
  console.error(`stryker.config.json mutates files no group of vitest.mutation.config.ts runs: ${missing.join(", ")}`);
  process.exit(2);
}
const { groups, concurrency } = parseArgs(process.argv.slice(2));
const failed = groups.filter((name) => runGroup(name, concurrency) !== 0);
if (failed.length > 0) console.error(`groups under the break threshold or failed: ${failed.join(", ")}`);
process.exit(failed.length === 0 ? 0 : 1);
