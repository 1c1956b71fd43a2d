// Builds the companion app (app/ → app/dist) with Vite, and tells whether the build is missing or older than
// its sources (app/ and the client library it bundles). Used by `npm install` (prepare), `npm start` and the
// app tests, so nobody runs a separate build command.
//   node --import tsx scripts/build-app.ts          build if stale
//   node --import tsx scripts/build-app.ts --force  build always
import { readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const APP_DIST = join(root, "app", "dist");
const SOURCES = ["app/src", "app/public", "app/index.html", "app/vite.config.ts", "client", "package-lock.json"];

/** Newest modification time (ms) under `path`, 0 when it does not exist. */
function newestMtime(path: string): number {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stats.mtimeMs);
}

export function appBuildIsStale(): boolean {
  const built = newestMtime(join(APP_DIST, "index.html"));
  if (built === 0) return true;
  return SOURCES.some((source) => newestMtime(join(root, source)) > built);
}

/**
 * Builds into a fresh folder beside app/dist, then swaps it in: a server (or a test) reading app/dist meanwhile
 * never finds it emptied half-way through a build.
 */
export async function buildApp(): Promise<void> {
  const { build } = await import("vite");
  const fresh = `${APP_DIST}.building-${process.pid}`;
  const old = `${APP_DIST}.old-${process.pid}`;
  // Vite builds for production only when NODE_ENV says so, and keeps a NODE_ENV already set: under vitest ("test")
  // the build came out with the development JSX runtime (each element with its file and line), 48 KB bigger than the
  // same build from the command line. The test run, the benchmarks and `npm start` all serve one production build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      configFile: join(root, "app", "vite.config.ts"),
      logLevel: "warn",
      build: { outDir: fresh, emptyOutDir: true },
    });
    if (newestMtime(APP_DIST) > 0) renameSync(APP_DIST, old);
    renameSync(fresh, APP_DIST);
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    rmSync(fresh, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
  }
}

/** Builds when app/dist is missing or older than its sources; returns whether it built. */
export async function ensureAppBuilt(): Promise<boolean> {
  if (!appBuildIsStale()) return false;
  await buildApp();
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const built = process.argv.includes("--force") ? (await buildApp(), true) : await ensureAppBuilt();
  process.stdout.write(
    built ? `app built into ${APP_DIST} in ${Date.now() - started} ms\n` : `app is up to date (${APP_DIST})\n`,
  );
}
