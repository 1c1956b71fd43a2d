// The app's first paint in bytes: the JS and CSS that index.html loads before the app runs, each gzipped at -9 (as a
// server would send it), against the 120 KiB budget (docs/app.md "Speed"). One home for the figure: the app
// benchmark prints it and test/app-render/first-paint-budget.test.ts holds the build to it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** 120 KiB gzip: what the entry JS and CSS may weigh together. */
export const FIRST_LOAD_BUDGET_BYTES = 120 * 1024;

export interface FirstLoadFile {
  /** Relative to the build's folder: `assets/index-<hash>.js`. */
  file: string;
  gzip_bytes: number;
}

/** Each JS or CSS file index.html names, in its order, with its gzip -9 size. */
export function firstLoadFiles(dist: string): FirstLoadFile[] {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const files = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1]!);
  return files.map((file) => ({ file, gzip_bytes: gzipSync(readFileSync(join(dist, file)), { level: 9 }).length }));
}

/** The first paint's bytes: the sum over `firstLoadFiles`. */
export function firstLoadBytes(dist: string): number {
  return firstLoadFiles(dist).reduce((sum, file) => sum + file.gzip_bytes, 0);
}
