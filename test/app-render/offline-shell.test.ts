// The service worker's offline shell lists every file of the build but the PDF viewer's renderer, so what the
// renderer loads lazily (markdown-it, KaTeX with its stylesheet and fonts, highlight.js) works offline too, and KaTeX's
// fonts are woff2 only (the other formats would be precached for nothing). The PDF renderer and pdf.js's worker (1.8 MB)
// are fetched when a PDF is first opened: the file the viewer shows comes from the server anyway, and offline the
// viewer shows the passage's text (docs/documents.md "The PDF viewer"). app/dist is built by the test run's global
// setup (build-once.ts). docs/app.md "Rendering". Its cache is named by a digest of those files as written (OF17).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { shellVersion } from "../../app/src/sw/shell-version.ts";
import { APP_DIST } from "../../scripts/build-app.ts";

function shellOf(): string[] {
  const source = readFileSync(join(APP_DIST, "sw.js"), "utf8");
  return JSON.parse(/const SHELL = (\[.*?\]);/.exec(source)![1]!) as string[];
}

function cacheNameOf(): string {
  return /const CACHE = "([^"]+)";/.exec(readFileSync(join(APP_DIST, "sw.js"), "utf8"))![1]!;
}

describe("the offline shell", () => {
  it("precaches every asset of the build but the PDF renderer, lazy chunks and KaTeX's fonts included", () => {
    const assets = readdirSync(join(APP_DIST, "assets")).map((name) => `./assets/${name}`);
    const shell = shellOf();
    const left = assets.filter((asset) => !shell.includes(asset));
    expect(left.map((asset) => asset.replace(/[.-][\w-]{8}\.(m?js|css)$/, ".$1")).sort()).toEqual([
      "./assets/pdf-render.css",
      "./assets/pdf-render.js",
      "./assets/pdf.worker.min.mjs",
    ]);
    for (const lazy of [
      /\/markdown-.*\.js$/,
      /\/math-.*\.js$/,
      /\/math-.*\.css$/,
      /\/core-.*\.js$/,
      /KaTeX_Main-Regular-.*\.woff2$/,
    ]) {
      expect(
        shell.some((file) => lazy.test(file)),
        String(lazy),
      ).toBe(true);
    }
  });

  it("OF17 names its cache by the digest of the files as written, listed in path order", () => {
    const files = shellOf()
      .filter((file) => file !== "./")
      .map((file) => file.slice(2));
    expect(files).toEqual([...files].sort());
    // "./" is index.html, whose bytes count too.
    const written = [...files, "index.html"].map((path) => ({ path, bytes: readFileSync(join(APP_DIST, path)) }));
    expect(cacheNameOf()).toBe(`chat-relay-shell-${shellVersion(written)}`);
  });

  it("carries KaTeX's fonts as woff2 only", () => {
    const fonts = shellOf().filter((file) => file.includes("KaTeX_"));
    expect(fonts.length).toBeGreaterThan(10);
    expect(fonts.filter((file) => !file.endsWith(".woff2"))).toEqual([]);
  });
});
