// The bridge serves the companion app at `/` (issue 14, docs/bridge.md "The app on the bridge", B64): the build's
// files from a folder (a temp one here), hashed assets cached a year, index.html and sw.js revalidated, no path
// out of the folder, and a page saying so when there is no build. Served through @fastify/send.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBridge } from "../../bridge/bridge.ts";
import { defaultBridgeConfig, loadBridgeConfig } from "../../bridge/config.ts";
import { MemoryLogger } from "../support/memory-logger.ts";
import { rawGet } from "../support/raw-get.ts";
import { cleanups, runCleanups, tempDir } from "./helpers.ts";

afterEach(runCleanups);

async function bridgeServing(appDir: string) {
  const bridge = await startBridge({
    config: defaultBridgeConfig({ port: 0, dataDir: tempDir() }),
    log: new MemoryLogger(),
    sweepEveryMs: 0,
    appDir,
  });
  cleanups.push(() => bridge.close());
  return bridge;
}

function builtApp(): string {
  const root = tempDir();
  const dist = join(root, "dist");
  mkdirSync(join(dist, "assets"), { recursive: true });
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>chat-relay</title>");
  writeFileSync(join(dist, "sw.js"), "self.addEventListener('fetch', () => {});");
  writeFileSync(join(dist, "assets", "main-4f3a2b.js"), "console.log('app');");
  writeFileSync(join(dist, ".env"), "SECRET=1");
  writeFileSync(join(root, "secret.txt"), "outside the build");
  return dist;
}

describe("the app on the bridge", () => {
  it("serves index.html at / and the build's files, with the cache rules of the server", async () => {
    const bridge = await bridgeServing(builtApp());
    const index = await fetch(`${bridge.httpUrl}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toMatch(/^text\/html/);
    expect(index.headers.get("cache-control")).toBe("no-cache");
    expect(await index.text()).toContain("<title>chat-relay</title>");
    const worker = await fetch(`${bridge.httpUrl}/sw.js`);
    expect(worker.headers.get("cache-control")).toBe("no-cache");
    const asset = await fetch(`${bridge.httpUrl}/assets/main-4f3a2b.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await asset.text()).toBe("console.log('app');");
    // The other routes are still the bridge's.
    expect(await (await fetch(`${bridge.httpUrl}/health`)).json()).toEqual({ ok: true });
  });

  it("never serves a path outside the build, nor a dotfile, and answers missing files 404 in the error shape", async () => {
    const bridge = await bridgeServing(builtApp());
    for (const path of [
      "/../secret.txt",
      "/%2e%2e/secret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/..%5csecret.txt",
      "/.env",
      "/missing.js",
      "/assets",
      "/%00",
    ]) {
      const answer = await rawGet(bridge.port, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain("outside the build");
      expect(JSON.parse(answer.body), path).toMatchObject({ error: { code: "route_not_found" } });
    }
    const post = await fetch(`${bridge.httpUrl}/`, { method: "POST" });
    expect(post.status).toBe(404);
  });

  it("answers a page saying the app is not built when the folder holds no build", async () => {
    const bridge = await bridgeServing(join(tempDir(), "no-such-dist"));
    const page = await fetch(`${bridge.httpUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("The companion app is not built");
    expect((await fetch(`${bridge.httpUrl}/assets/main.js`)).status).toBe(404);
  });
});

describe("BRIDGE_PUBLIC_URL", () => {
  it("is the endpoint apps are given and names the app's URL; a value that is no ws(s) URL is refused naming the variable", async () => {
    const config = loadBridgeConfig(
      { BRIDGE_PORT: "0", DATA_DIR: tempDir(), BRIDGE_PUBLIC_URL: "wss://relay.example.com/socket" },
      1024,
    );
    const bridge = await startBridge({ config, log: new MemoryLogger(), sweepEveryMs: 0, appDir: builtApp() });
    cleanups.push(() => bridge.close());
    expect(bridge.publicUrl).toBe("wss://relay.example.com/socket");
    expect(bridge.appUrl).toBe("https://relay.example.com/");
    const plain = await bridgeServing(builtApp());
    expect(plain.publicUrl).toBe(plain.url);
    expect(plain.appUrl).toBe(`${plain.httpUrl}/`);
    expect(() => loadBridgeConfig({ BRIDGE_PUBLIC_URL: "https://relay.example.com/" }, 1024)).toThrow(
      /^BRIDGE_PUBLIC_URL: must be a ws:\/\/ or wss:\/\/ URL/,
    );
    expect(loadBridgeConfig({ BRIDGE_PUBLIC_URL: "" }, 1024).publicUrl).toBeUndefined();
  });
});
