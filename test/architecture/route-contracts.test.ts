// Every HTTP route's contract is in the wire (docs/server.md "Route contracts"): the server app, built as it runs,
// registers no route without the contract it was served from (preflights aside), and nothing in app/ or client/
// outside client/wire/ spells a route's path: the library calls routes through their contracts, the app through
// the library.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as routes from "../../client/wire/routes/index.ts";
import type { RouteContract } from "../../client/wire/routes/route.ts";
import { buildApp } from "../../server/app.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Routes that are the framework's, not the API's: CORS preflights. */
const NOT_API = new Set(["OPTIONS *"]);

const contracts = (Object.values(routes) as unknown[]).filter(
  (value): value is RouteContract =>
    typeof value === "object" && value !== null && "method" in value && "path" in value && "answer" in value,
);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.runtime.close());

/** Every route the server app registers, as `METHOD url` with the contract it carries. */
async function registeredRoutes(appDir: string): Promise<{ route: string; contract: RouteContract | undefined }[]> {
  const seen: RouteOptions[] = [];
  const app = buildApp(server.runtime.ctx, {}, { appDir, onRoute: (route) => seen.push(route) });
  await app.ready();
  await app.close();
  return seen.flatMap((route) =>
    [route.method].flat().map((method) => ({
      route: `${method} ${route.url}`,
      contract: (route.config as { contract?: RouteContract } | undefined)?.contract,
    })),
  );
}

/** A contract matches the route it rides on: its method (HEAD is Fastify's twin of a GET) and its path. */
function mismatch(route: string, contract: RouteContract | undefined): string | undefined {
  if (!contract) return `${route}: registered without a wire contract`;
  if (contract === routes.appFileRoute)
    return route.startsWith("GET ") || route.startsWith("HEAD ") ? undefined : route;
  const [method, url] = route.split(" ") as [string, string];
  const sameMethod = method === contract.method || (method === "HEAD" && contract.method === "GET");
  return sameMethod && url === contract.path ? undefined : `${route}: served from ${contract.method} ${contract.path}`;
}

describe("routes in the wire (issue 29, item 1)", () => {
  it("registers every route of the server app with its contract, the app's files too", async () => {
    const appDir = tempDir("app-dist-");
    mkdirSync(join(appDir, "assets"));
    writeFileSync(join(appDir, "index.html"), "<!doctype html>");
    writeFileSync(join(appDir, "assets", "index-abc.js"), "");
    for (const dir of [appDir, tempDir("no-app-")]) {
      const registered = (await registeredRoutes(dir)).filter(({ route }) => !NOT_API.has(route));
      expect(registered.length).toBeGreaterThan(contracts.length / 2);
      expect(registered.flatMap(({ route, contract }) => mismatch(route, contract) ?? [])).toEqual([]);
    }
  });

  it("serves each served contract once (the library's per-action contracts of one route aside)", async () => {
    const served = (await registeredRoutes(tempDir("no-app-"))).flatMap(({ route, contract }) =>
      route.startsWith("HEAD ") || !contract ? [] : [contract],
    );
    expect(new Set(served).size).toBe(served.length);
  });
});

// --- literal route paths in app/ and client/ ----------------------------------------------------------------

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** A file's text with comments blanked (line numbers kept), so a comment may name a route. */
function code(file: string): string {
  return readFileSync(file, "utf8").replace(/\/\*[^]*?\*\/|(?<![:"'`\\])\/\/[^\n]*/g, (comment) =>
    comment.replace(/[^\n]/g, " "),
  );
}

/** The first segment of every route path (`sessions`, `push`, `app-config.json`, ...). */
const FIRST_SEGMENTS = [...new Set(contracts.map((c) => c.path.split("/")[1]!).filter((s) => /^[\w.-]+$/.test(s)))];
const escaped = FIRST_SEGMENTS.map((s) => s.replace(/[.]/g, "\\."));
/**
 * A string or template literal that starts like a route path: "/sessions…", `/push/…`, or a whole relative one,
 * "./app-config.json" (a module import such as "./sessions.ts" or "./search/x.ts" is not one).
 */
export const LITERAL_ROUTE = new RegExp(
  `["'\`](?:/(?:${escaped.join("|")})(?![\\w.-])|\\./(?:${escaped.join("|")})["'\`])`,
  "g",
);

/** `file:line` of every literal route path in app/ and client/ outside client/wire/. */
export function literalRoutePaths(root: string): string[] {
  const files = [...sourceFiles(join(root, "client")), ...sourceFiles(join(root, "app", "src"))].filter(
    (file) => !relative(root, file).startsWith(join("client", "wire")),
  );
  return files.flatMap((file) => {
    const text = code(file);
    return [...text.matchAll(LITERAL_ROUTE)].map(
      (match) => `${relative(root, file)}:${text.slice(0, match.index).split("\n").length}`,
    );
  });
}

it("spells no route path in app/ or client/ outside client/wire/ (issue 29, item 1)", () => {
  expect(FIRST_SEGMENTS).toContain("sessions");
  expect(literalRoutePaths(ROOT)).toEqual([]);
});
