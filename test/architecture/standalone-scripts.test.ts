// Every script under scripts/ runs on its own (`node --import tsx scripts/<name>.ts`), outside vitest: no module it
// loads imports vitest's test API ("vitest": vi, expect, afterEach...), which throws when no vitest run is under way.
// vitest/config and vitest/node work anywhere and are allowed. Followed as node loads them: relative imports, static
// and dynamic, `import type` left out (erased); under verbatimModuleSyntax an inline `{ type X }` import still loads.
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { expect, it } from "vitest";
import { ROOT, sourceFiles } from "./support/source-code.ts";

/** The specifiers a file loads when it runs: `import`/`export … from`, bare `import "…"` and `import("…")`. */
export function loadedSpecifiers(text: string): string[] {
  return [
    ...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+["']([^"']+)["']/gm),
    ...text.matchAll(/^\s*import\s+["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((match) => match[1]!);
}

const TEST_API = /^vitest$/;

/** The chain of files (from the script) to each module reached from `script` that imports vitest's test API. */
function testApiImporters(script: string): string[] {
  const found: string[] = [];
  const reachedFrom = new Map<string, string[]>([[script, []]]);
  const queue = [script];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const chain = [...reachedFrom.get(file)!, relative(ROOT, file)];
    const text = readFileSync(file, "utf8").replace(/\/\*[^]*?\*\/|\/\/[^\n]*/g, "");
    for (const specifier of loadedSpecifiers(text)) {
      if (TEST_API.test(specifier)) found.push(chain.join(" -> "));
      const target = resolve(dirname(file), specifier);
      if (!specifier.startsWith(".") || reachedFrom.has(target) || !existsSync(target)) continue;
      reachedFrom.set(target, chain);
      queue.push(target);
    }
  }
  return found;
}

it("reads what a module loads: value imports, re-exports, side-effect and dynamic imports; not type-only ones", () => {
  const text = [
    'import { vi } from "vitest";',
    'import type { Stack } from "./stack.ts";',
    'import { type Page, launch } from "a-package";',
    "import {\n  a,\n  b,\n} from './many.ts';",
    'export { c } from "./c.ts";',
    'export type { D } from "./d.ts";',
    'import "./side.ts";',
    'const later = await import("./later.ts");',
  ].join("\n");
  expect(loadedSpecifiers(text)).toEqual(["vitest", "a-package", "./many.ts", "./c.ts", "./side.ts", "./later.ts"]);
});

it("no script under scripts/ loads a module that imports vitest's test API", () => {
  const scripts = sourceFiles(resolve(ROOT, "scripts"));
  expect(scripts.map((file) => relative(ROOT, file))).toContain("scripts/screenshots.ts");
  expect(scripts.flatMap(testApiImporters)).toEqual([]);
});
