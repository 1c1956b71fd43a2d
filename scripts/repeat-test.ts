// Runs one test file N times, one run after another, and prints one JSON line: how many runs, how many failed, and
// which (docs/testing.md "Repeating a test"). Usage: node --import tsx scripts/repeat-test.ts <test file> [runs=20]
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const [file, runsText = "20"] = process.argv.slice(2);
const runs = Number(runsText);
if (!file || !existsSync(file) || !Number.isInteger(runs) || runs < 1) {
  console.error("usage: node --import tsx scripts/repeat-test.ts <test file> [runs=20]");
  process.exit(2);
}

const failed: number[] = [];
for (let run = 1; run <= runs; run++) {
  const result = spawnSync("npx", ["vitest", "run", file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.status !== 0) {
    failed.push(run);
    const failure = `${result.stdout}\n${result.stderr}`.split("\n").filter((line) => /FAIL|Error|×/.test(line));
    console.error(`run ${run} failed:\n${failure.slice(0, 12).join("\n")}`);
  }
}
console.log(JSON.stringify({ file, runs, failed: failed.length, failed_runs: failed }));
process.exit(failed.length === 0 ? 0 : 1);
