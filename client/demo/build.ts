// Bundles the demo for browsers with esbuild: one ES module (the client library, phoenix and zod inlined).
// `node --import tsx client/demo/build.ts [outdir]` writes demo.js next to index.html in outdir.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

/** Builds the page into `outdir` (index.html + demo.js) and returns the folder. */
export async function buildDemo(outdir: string): Promise<string> {
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [join(here, "main.ts")],
    outfile: join(outdir, "demo.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    sourcemap: true,
    logLevel: "warning",
  });
  copyFileSync(join(here, "index.html"), join(outdir, "index.html"));
  return outdir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outdir = await buildDemo(process.argv[2] ?? join(here, "..", "dist", "demo"));
  process.stdout.write(`built ${outdir}\n`);
}
