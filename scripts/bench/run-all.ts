// `npm run bench`: runs every benchmark in this folder one after another (never in parallel: they would
// measure each other) and passes their one-line JSON results through.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const folder = fileURLToPath(new URL(".", import.meta.url));
const NOT_BENCHMARKS = new Set(["run-all.ts", "stats.ts"]);
const only = process.argv.slice(2);

for (const file of readdirSync(folder)
  .filter((f) => f.endsWith(".ts") && !NOT_BENCHMARKS.has(f))
  .sort()) {
  if (only.length > 0 && !only.some((name) => file.startsWith(name))) continue;
  const run = spawnSync(process.execPath, ["--import", "tsx", `${folder}${file}`], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (run.status !== 0) process.stderr.write(`${file} failed (${run.status ?? run.signal})\n`);
}
