// Builds the companion app into app/dist: hashed assets, the manifest and icons from public/, and sw.js, a
// service worker generated from the bundle's own file list so the offline shell is always the current build.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { minify } from "terser";
import { defineConfig, type Plugin } from "vite";
import { serviceWorkerSource } from "./src/sw/service-worker-source.ts";
import { shellVersion, type ShellFile } from "./src/sw/shell-version.ts";

/**
 * Files the service worker does not precache: the PDF viewer's renderer and pdf.js's worker (app/src/documents/
 * pdf-render.ts), fetched from the server when a PDF is first opened. Precached, every install would download 1.8 MB
 * more for a viewer that needs the server anyway (the file it shows comes from there).
 */
const NOT_PRECACHED = /^assets\/(pdf-render|pdf\.worker)[.-]/;

function serviceWorker(): Plugin {
  return {
    name: "chat-relay-service-worker",
    apply: "build",
    enforce: "post",
    // Last of the bundle's hooks (listed last among the "post" ones): the shell's version is a digest of the files as
    // written, after terser and the compile hint have changed the entry.
    generateBundle: {
      order: "post",
      handler(_options, bundle) {
        // The bundle's files and public/'s (icons, manifest), which Vite copies without listing them in the bundle:
        // the offline shell needs both (the logo is an icon).
        const shell: ShellFile[] = [
          ...Object.values(bundle).map((file) => ({
            path: file.fileName,
            bytes: file.type === "chunk" ? file.code : file.source,
          })),
          ...publicFiles().map((path) => ({ path, bytes: readFileSync(join(import.meta.dirname, "public", path)) })),
        ].filter(({ path }) => !path.endsWith(".map") && !NOT_PRECACHED.test(path));
        // index.html is cached as "./", the address the app is opened at; its bytes are in the version all the same.
        const files = shell
          .map(({ path }) => path)
          .filter((path) => path !== "index.html")
          .sort();
        this.emitFile({ type: "asset", fileName: "sw.js", source: serviceWorkerSource(files, shellVersion(shell)) });
      },
    },
  };
}

function publicFiles(dir = join(import.meta.dirname, "public")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? publicFiles(join(dir, entry.name))
      : [
          relative(join(import.meta.dirname, "public"), join(dir, entry.name))
            .split("\\")
            .join("/"),
        ],
  );
}

/**
 * KaTeX's stylesheet names each font in woff2, woff and ttf; every browser the app supports reads woff2, and each
 * named file would be emitted and precached by the service worker (1.2 MB instead of 0.3 MB). Keep woff2 only.
 */
function katexWoff2Only(): Plugin {
  return {
    name: "chat-relay-katex-woff2-only",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]katex[\\/]dist[\\/]katex(?:\.min)?\.css$/.test(id)) return undefined;
      const olderFormats = /,\s*url\([^)]*\.(?:woff|ttf)\)\s*format\(["'](?:woff|truetype)["']\)/g;
      return { code: code.replace(olderFormats, ""), map: null };
    },
  };
}

/**
 * The entry chunk (the first paint, which sits at its 120 KiB gzip budget: docs/app.md "Speed") minified once more by
 * terser with two compress passes, about 3% less gzip than esbuild's minifier alone. Only the entry: terser over the
 * lazy chunks (pdf.js's renderer is a megabyte) would triple the build's time for bytes loaded on first use.
 */
function terserFirstPaint(): Plugin {
  return {
    name: "chat-relay-terser-first-paint",
    apply: "build",
    enforce: "post",
    // After Vite's own minifier (renderChunk): terser runs over esbuild's output. The file keeps its name, whose hash
    // is of the same source, so it still changes exactly when the source does.
    async generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type !== "chunk" || !file.isEntry) continue;
        const result = await minify(file.code, { module: true, compress: { passes: 2 }, sourceMap: false });
        if (result.code !== undefined) file.code = result.code;
      }
    },
  };
}

/** V8's explicit compile hint (Chromium 136 and later): a file that starts with it is compiled whole as it streams in. */
const COMPILE_ALL_HINT = "//# allFunctionsCalledOnLoad";

/** The markdown renderer's module (docs/app.md "Start-up", SU19): its chunk is loaded when the app is first idle. */
const RENDERER_MODULE = "/src/render/markdown.ts";

/**
 * The chunks that start with V8's compile hint (docs/app.md "Start-up", SU18, SU20): the entry, and the markdown
 * renderer's chunk with the chunks it imports. Without the hint V8 compiles each function the first time it runs, on
 * the main thread: the cold open compiled ~880 functions of the entry so, a fifth of its time on the benchmark's
 * throttled phone, and every chat's first open ~170 of the renderer's (markdown-it's rules), 30-45 ms. With it they
 * are compiled as the script streams in, on the thread that streams it: the entry's before it runs, the renderer's
 * while the app is idle (it is loaded then, before a chat needs it). Not the other lazy chunks: each is loaded for
 * one feature, as it is used, and runs little of itself. Other engines read a comment.
 */
function compileWhole(): Plugin {
  return {
    name: "chat-relay-compile-whole",
    apply: "build",
    enforce: "post",
    // After terser's pass over the entry (terserFirstPaint), which drops comments; before the service worker's, which
    // digests the files as written.
    generateBundle: {
      order: "post",
      handler(_options, bundle) {
        const chunks = Object.values(bundle).filter((file) => file.type === "chunk");
        const renderer = chunks.find((chunk) => chunk.moduleIds.some((id) => id.endsWith(RENDERER_MODULE)));
        if (!renderer) return this.error(`no chunk of ${RENDERER_MODULE}: the compile hint would miss the renderer`);
        const whole = new Set([renderer.fileName, ...renderer.imports]);
        for (const chunk of chunks)
          if (chunk.isEntry || whole.has(chunk.fileName)) chunk.code = `${COMPILE_ALL_HINT}\n${chunk.code}`;
      },
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  // Relative URLs: the same build is served at the server's / and (later) the bridge's /.
  base: "./",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    reportCompressedSize: false,
    chunkSizeWarningLimit: 500,
    rollupOptions: {
      // zod's sources carry /*@__PURE__*/ comments rollup cannot place; the warning is noise, the output is fine.
      onwarn(warning, warn) {
        if (warning.code !== "INVALID_ANNOTATION") warn(warning);
      },
    },
  },
  logLevel: "warn",
  plugins: [katexWoff2Only(), terserFirstPaint(), compileWhole(), serviceWorker()],
});
