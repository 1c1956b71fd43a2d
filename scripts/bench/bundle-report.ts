// What the companion app's first paint loads, per package: builds the app once more (same config, into a temporary
// folder) with a plugin that reads Rollup's chunk graph, then sorts every chunk into "first paint" (the entry and
// everything it imports statically, with their CSS: what index.html loads before the app runs) or "lazy" (reached
// only through a dynamic import). Bytes per package are the rendered module code after minification; gzip per
// package is that code minified again on its own (esbuild; Rollup hands plugins the code before minification) and
// gzipped on its own (-9): an estimate that adds up to a little more than the chunks' gzip, the figure that counts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { OutputBundle, OutputChunk } from "rollup";
import { transformSync } from "esbuild";
import type { Plugin } from "vite";

export interface PackageFigure {
  package: string;
  bytes: number;
  gzip: number;
}

export interface BundleReport {
  first_paint_gzip_bytes: number;
  lazy_gzip_bytes: number;
  first_paint_files: string[];
  first_paint_packages: PackageFigure[];
  lazy_packages: PackageFigure[];
}

const gzip = (data: string | Uint8Array) => gzipSync(data, { level: 9 }).length;

/** "katex", "@noble/curves", "app/src/render" or "client/wire/crypto" from a module id. */
export function packageOf(id: string, root: string): string {
  const clean = id.replace(/^\0/, "").replace(/\?.*$/, "");
  const inModules = clean.lastIndexOf("node_modules/");
  if (inModules >= 0) {
    const parts = clean.slice(inModules + "node_modules/".length).split("/");
    return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const relative = clean.startsWith(root) ? clean.slice(root.length + 1) : clean;
  const parts = relative.split("/");
  return parts.slice(0, Math.min(parts.length - 1, 3)).join("/") || relative;
}

function firstPaintChunks(bundle: OutputBundle): Set<string> {
  const chunks = Object.values(bundle).filter((item): item is OutputChunk => item.type === "chunk");
  const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const imported of byName.get(name)?.imports ?? []) visit(imported);
  };
  for (const chunk of chunks) if (chunk.isEntry) visit(chunk.fileName);
  return seen;
}

function addUp(into: Map<string, string[]>, name: string, code: string): void {
  const list = into.get(name) ?? [];
  list.push(code);
  into.set(name, list);
}

function minified(code: string, css: boolean): string {
  try {
    return transformSync(code, { minify: true, loader: css ? "css" : "js", format: css ? undefined : "esm" }).code;
  } catch {
    return code; // a package's modules do not always parse on their own: then its figure is the unminified code
  }
}

function figures(codeByPackage: Map<string, string[]>): PackageFigure[] {
  return [...codeByPackage]
    .map(([name, codes]) => {
      const code = minified(codes.join("\n"), name.startsWith("css:"));
      return { package: name, bytes: Buffer.byteLength(code), gzip: gzip(code) };
    })
    .sort((a, b) => b.gzip - a.gzip);
}

function reportPlugin(root: string, deliver: (report: BundleReport) => void): Plugin {
  return {
    name: "bundle-report",
    apply: "build",
    enforce: "post",
    generateBundle(_options, bundle) {
      const first = firstPaintChunks(bundle);
      const firstCss = new Set<string>();
      const packages = { first: new Map<string, string[]>(), lazy: new Map<string, string[]>() };
      let firstGzip = 0;
      let lazyGzip = 0;
      for (const item of Object.values(bundle)) {
        if (item.type !== "chunk") continue;
        const isFirst = first.has(item.fileName);
        if (isFirst) item.viteMetadata?.importedCss.forEach((css) => firstCss.add(css));
        for (const [id, module] of Object.entries(item.modules)) {
          if (module.code) addUp(isFirst ? packages.first : packages.lazy, packageOf(id, root), module.code);
        }
        if (isFirst) firstGzip += gzip(item.code);
        else lazyGzip += gzip(item.code);
      }
      for (const item of Object.values(bundle)) {
        if (item.type !== "asset" || !/\.css$/.test(item.fileName)) continue;
        const size = gzip(typeof item.source === "string" ? item.source : Buffer.from(item.source));
        const target = firstCss.has(item.fileName) ? packages.first : packages.lazy;
        addUp(target, `css:${item.fileName.replace(/^assets\/|-[\w-]{8}\.css$/g, "")}`, String(item.source));
        if (firstCss.has(item.fileName)) firstGzip += size;
        else lazyGzip += size;
      }
      deliver({
        first_paint_gzip_bytes: firstGzip,
        lazy_gzip_bytes: lazyGzip,
        first_paint_files: [...first, ...firstCss].sort(),
        first_paint_packages: figures(packages.first),
        lazy_packages: figures(packages.lazy),
      });
    },
  };
}

/** Builds the app into a temporary folder with the report plugin; `root` is the repository's root. */
export async function bundleReport(root: string): Promise<BundleReport> {
  const { build } = await import("vite");
  const outDir = mkdtempSync(join(tmpdir(), "app-bundle-report-"));
  let report: BundleReport | undefined;
  try {
    await build({
      configFile: join(root, "app", "vite.config.ts"),
      logLevel: "warn",
      build: { outDir, emptyOutDir: true },
      plugins: [reportPlugin(root, (made) => (report = made))],
    });
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  if (!report) throw new Error("the bundle report plugin did not run");
  return report;
}

if (process.argv[1]?.endsWith("bundle-report.ts")) {
  const root = join(import.meta.dirname, "..", "..");
  process.stdout.write(`${JSON.stringify(await bundleReport(root), null, 1)}\n`);
}
