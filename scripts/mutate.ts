// `npm run mutate`: Stryker over the security-critical files, one group of vitest.mutation.config.ts at a time, each
// run loading only that group's tests (MUTATION_GROUP). Each group runs from a config of its own written beside its
// report (reports/mutation/<group>.config.json: stryker.config.json with the group's files, its own sandbox folder and
// its JSON report reports/mutation/<group>.json), so two groups may run at once. scripts/mutation-summary.ts prints
// the docs/testing.md table from the reports, and a line per group says how long it took. Exits non-zero when a group's score is under stryker.config.json's break threshold
// or a file stryker.config.json mutates belongs to no group.
// Usage: node --import tsx scripts/mutate.ts [group ...] [--concurrency N]   (groups: every group when none is named)
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { MUTATION_GROUPS } from "../vitest.mutation.config.ts";

const CONFIG = JSON.parse(readFileSync("stryker.config.json", "utf8")) as { mutate: string[]; $schema?: string };
const REPORTS = "reports/mutation";

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

/** stryker.config.json narrowed to one group: its files, its sandbox, its report. */
function groupConfig(name: string): string {
  const { $schema: _schema, ...base } = CONFIG;
  const config = {
    ...base,
    mutate: MUTATION_GROUPS[name]!.mutate,
    tempDirName: `.stryker-tmp/${name}`,
    jsonReporter: { fileName: `${REPORTS}/${name}.json` },
  };
  mkdirSync(REPORTS, { recursive: true });
  const file = `${REPORTS}/${name}.config.json`;
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

function runGroup(name: string, concurrency: string | undefined): number | null {
  const started = Date.now();
  const args = ["stryker", "run", groupConfig(name)];
  if (concurrency !== undefined) args.push("--concurrency", concurrency);
  const result = spawnSync("npx", args, { stdio: "inherit", env: { ...process.env, MUTATION_GROUP: name } });
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
