// Builds test/app-render/harness (the renderer and the app's stylesheets, bundled by Vite exactly as the app is,
// lazy chunks included) into a temporary folder and serves it on 127.0.0.1, for the Chromium tests and screenshots.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const harnessRoot = fileURLToPath(new URL("../harness", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".ttf": "font/ttf",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

export interface Harness {
  url: string;
  /** Serves `bytes` at `path` (e.g. an image a message links to). */
  addFile(path: string, bytes: Buffer, type: string): void;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const { build } = await import("vite");
  const outDir = mkdtempSync(join(tmpdir(), "render-harness-"));
  await build({
    root: harnessRoot,
    base: "./",
    configFile: false,
    logLevel: "warn",
    esbuild: { jsx: "automatic", jsxImportSource: "preact" },
    build: { outDir, emptyOutDir: true, target: "es2022", reportCompressedSize: false, chunkSizeWarningLimit: 5000 },
  });
  const extra = new Map<string, { bytes: Buffer; type: string }>();
  const server: Server = createServer((req, res) => {
    const path =
      normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(/^\/+/, "") || "index.html";
    const added = extra.get(path);
    if (added) return void res.writeHead(200, { "content-type": added.type }).end(added.bytes);
    try {
      if (path.startsWith("..")) throw new Error("outside the build");
      const bytes = readFileSync(join(outDir, path));
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(bytes);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    addFile: (path, bytes, type) => void extra.set(path.replace(/^\/+/, ""), { bytes, type }),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}
