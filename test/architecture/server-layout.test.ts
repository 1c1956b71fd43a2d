// The server's layout, read from the source. Services are built in dependency order (server/runtime.ts) and each
// names the parts it uses, so no import (type-only ones included) leads back to where it started; and every HTTP
// route has one home, server/http/routes/<area>.ts.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { expect, it } from "vitest";
import { ROOT, sourceFiles } from "./support/source-code.ts";

const SERVER = join(ROOT, "server");

/** file → the server files it imports (relative specifiers only; `import type` and `export ... from` count). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SERVER)) {
    const specifiers = [
      ...readFileSync(file, "utf8").matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"/gms),
    ].map((m) => m[1]!);
    graph.set(
      file,
      specifiers.map((s) => resolve(dirname(file), s)).filter((target) => target.startsWith(SERVER + "/")),
    );
  }
  return graph;
}

/** Every cycle found by a depth-first walk, each as the list of files around it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const walk = (file: string, path: string[]) => {
    const at = path.indexOf(file);
    if (at >= 0) return void found.push(path.slice(at).map((f) => relative(ROOT, f)));
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) walk(next, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) walk(file, []);
  return found;
}

it("server modules import one another without a cycle (context.ts is imported by routes and wiring, never by services)", () => {
  const graph = importGraph();
  expect(graph.size).toBeGreaterThan(50);
  expect(cycles(graph)).toEqual([]);
});

/** The CORS preflight answer is part of the CORS policy (server/http/cors.ts), not a route of an area. */
const ROUTE_HOME_EXCEPTIONS = new Set(["server/http/cors.ts"]);

it("registers every HTTP route in server/http/routes/<area>.ts", () => {
  const outside = sourceFiles(SERVER)
    .map((file) => relative(ROOT, file))
    .filter((file) => !file.startsWith("server/http/routes/") && !ROUTE_HOME_EXCEPTIONS.has(file))
    // A registration names a path: `app.post("/pairing", ...)`, `scope.get(`/sessions/...`, ...)`.
    .filter((file) =>
      /\b\w+\.(get|post|put|patch|delete|head|options|route)\(\s*["'`][/*]/.test(
        readFileSync(join(ROOT, file), "utf8"),
      ),
    );
  expect(outside).toEqual([]);
});

it("keeps start-up work out of the route files: plugins load where the runtime is assembled", () => {
  const routeFiles = sourceFiles(join(SERVER, "http/routes")).map((file) => relative(ROOT, file));
  expect(
    routeFiles.filter((file) => /addHook\(\s*"onReady"|plugins\.load\(/.test(readFileSync(join(ROOT, file), "utf8"))),
  ).toEqual([]);
  expect(readFileSync(join(SERVER, "runtime.ts"), "utf8")).toMatch(/addHook\(\s*"onReady"[^]*?plugins\.load\(\)/);
});
