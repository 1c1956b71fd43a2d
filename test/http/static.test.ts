// The companion app's files at `/` on a listening server (http/app-files.ts): no token for them, the right
// types and cache headers, every API route still behind its token, nothing outside the folder, and a page that
// says how to build when there is no build.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rawGet } from "../support/raw-get.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";

let server: TestServer | undefined;
let root: string | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

const SECRET = "top-secret-outside-the-app";

/** A fake build in <tmp>/dist, and a file beside it that must never be served. */
function fakeBuild(): string {
  root = tempDir("app-files-");
  const dist = join(root, "dist");
  mkdirSync(join(dist, "assets"), { recursive: true });
  mkdirSync(join(dist, "icons"));
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>fake app</title>");
  writeFileSync(join(dist, "assets", "index-3f2a9c.js"), "console.log('app')");
  writeFileSync(join(dist, "assets", "index-77aa01.css"), "body{}");
  writeFileSync(join(dist, "sw.js"), "self.addEventListener('fetch', () => {})");
  writeFileSync(join(dist, "manifest.webmanifest"), '{"name":"chat-relay"}');
  writeFileSync(join(dist, "icons", "icon-192.png"), Buffer.from("89504e470d0a1a0a", "hex"));
  writeFileSync(join(dist, ".env"), SECRET);
  writeFileSync(join(root, "secret.txt"), SECRET);
  return dist;
}

async function listening(appDir: string): Promise<string> {
  server = await startTestServer({}, { appDir });
  await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(server.runtime.app.server.address() as AddressInfo).port}`;
}

describe("the app's files", () => {
  it("GET / answers index.html without a token, revalidated on every load", async () => {
    const base = await listening(fakeBuild());
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(await response.text()).toContain("fake app");
    expect((await fetch(`${base}/index.html`)).headers.get("cache-control")).toBe("no-cache");
  });

  it("serves each file with its type; hashed assets for a year, sw.js and the rest revalidated", async () => {
    const base = await listening(fakeBuild());
    const expectations: Array<[string, RegExp, string]> = [
      ["/assets/index-3f2a9c.js", /javascript/, "public, max-age=31536000, immutable"],
      ["/assets/index-77aa01.css", /^text\/css/, "public, max-age=31536000, immutable"],
      ["/sw.js", /javascript/, "no-cache"],
      ["/manifest.webmanifest", /^application\/manifest\+json/, "no-cache"],
      ["/icons/icon-192.png", /^image\/png/, "no-cache"],
    ];
    for (const [path, type, cache] of expectations) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toMatch(type);
      expect(response.headers.get("cache-control"), path).toBe(cache);
    }
  });

  it("every API route still needs its token", async () => {
    const base = await listening(fakeBuild());
    for (const [method, path] of [
      ["GET", "/sessions"],
      ["GET", "/devices"],
      ["GET", "/events"],
      ["POST", "/pairing"],
      ["GET", "/agents"],
      ["POST", "/"],
    ] as const) {
      const response = await fetch(`${base}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    expect((await fetch(`${base}/sessions`, { headers: { authorization: "Bearer test-admin-token" } })).status).toBe(
      200,
    );
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });

  it("refuses paths outside the folder and dotfiles", async () => {
    const base = await listening(fakeBuild());
    for (const path of [
      "/../secret.txt",
      "/assets/../../secret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/%2e%2e/secret.txt",
      "/%2e%2e%2fsecret.txt",
      "/.env",
      "/assets/%2e%2e/.env",
      "/..%5csecret.txt",
    ]) {
      const response = await rawGet(new URL(base).port, path);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.body, path).not.toContain(SECRET);
    }
  });

  it("without a build, / says the app is not built and how to build it; the API is unchanged", async () => {
    root = tempDir("app-files-");
    const base = await listening(join(root, "no-dist"));
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain("not built");
    expect(page).toContain("npm ci");
    expect((await fetch(`${base}/sessions`)).status).toBe(401);
  });
});
