// The package rules of README.md "The parts", read from the source: imports follow the data flow and never run back.
// server/ and bridge/ import only the wire contract (client/wire/, with the end-to-end envelopes in client/wire/crypto/)
// of the client and never each other; the wire contract imports nothing else of the client, so what server and bridge
// take in is exactly it; client/ imports neither and nothing of app/; app/ imports the client only through its public
// entry (client/index.ts); nothing outside app/ imports app/. Type-only imports and re-exports count: a type is a
// dependency too.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PACKAGES = ["server", "bridge", "client", "app/src"] as const;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Every relative import of a source file, resolved to a path from the repository root. */
export function relativeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.[^"']+)["']/gms),
    ...text.matchAll(/^\s*import\s+["'](\.[^"']+)["']/gm),
    ...text.matchAll(/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g),
  ].map((m) => m[1]!);
  return specifiers.map((s) => relative(ROOT, resolve(dirname(file), s)));
}

/** Why `from` may not import `to`, or undefined when the rules allow it. */
export function violation(from: string, to: string): string | undefined {
  const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
  if (inside(from, "server") || inside(from, "bridge")) {
    const own = inside(from, "server") ? "server" : "bridge";
    if (inside(to, own)) return undefined;
    if (inside(to, "client/wire")) return undefined;
    return `${own}/ imports only itself and client/wire/`;
  }
  if (inside(from, "client/wire")) {
    if (inside(to, "client/wire")) return undefined;
    return "client/wire/ (the contract server and bridge import) imports only itself";
  }
  if (inside(from, "client")) {
    if (inside(to, "client")) return undefined;
    return "client/ imports neither server/, bridge/ nor app/";
  }
  if (inside(from, "app/src")) {
    if (inside(to, "app/src")) return undefined;
    if (to === "client/index.ts") return undefined;
    return "app/ imports the client only through client/index.ts";
  }
  return undefined;
}

it("no import breaks the package rules", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const pkg of PACKAGES) {
    for (const file of sourceFiles(join(ROOT, pkg))) {
      const from = relative(ROOT, file);
      for (const to of relativeImports(file)) {
        checked++;
        const why = violation(from, to);
        if (why) broken.push(`${from} → ${to}: ${why}`);
      }
    }
  }
  expect(checked).toBeGreaterThan(500);
  expect(broken).toEqual([]);
});

it("nothing outside app/ imports app/", () => {
  const dirs = ["server", "bridge", "client", "scripts"];
  const importers = dirs
    .flatMap((dir) => sourceFiles(join(ROOT, dir)))
    .filter((file) => relativeImports(file).some((to) => to.startsWith("app/")))
    .map((file) => relative(ROOT, file));
  // scripts/build-app.ts and scripts/screenshots.ts build and photograph the app; they read its files, not import it.
  expect(importers).toEqual([]);
});

it("the rules themselves refuse what they must (a check that cannot fail proves nothing)", () => {
  expect(violation("server/e2e/end-to-end.ts", "client/util/base64.ts")).toBeDefined();
  expect(violation("client/wire/crypto/bytes.ts", "client/util/base64.ts")).toBeDefined();
  expect(violation("server/e2e/end-to-end.ts", "client/wire/crypto/index.ts")).toBeUndefined();
  expect(violation("server/app.ts", "bridge/core.ts")).toBeDefined();
  expect(violation("bridge/core.ts", "server/context.ts")).toBeDefined();
  expect(violation("client/index.ts", "app/src/app.tsx")).toBeDefined();
  expect(violation("app/src/app.tsx", "client/connection/client.ts")).toBeDefined();
  expect(violation("app/src/app.tsx", "client/index.ts")).toBeUndefined();
  expect(violation("server/app.ts", "client/wire/index.ts")).toBeUndefined();
});
