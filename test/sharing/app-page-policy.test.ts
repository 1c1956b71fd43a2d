// The app's page carries a restrictive Content-Security-Policy on the server and the bridge (docs/security.md "The
// app's page", docs/people.md L10): index.html gets it; the app's other files do not need it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { startBridge } from "../../bridge/bridge.ts";
import { defaultBridgeConfig } from "../../bridge/config.ts";
import { MemoryLogger } from "../support/memory-logger.ts";
import { APP_CONTENT_SECURITY_POLICY } from "../../client/wire/routes/app-files.ts";
import { startTestServer, tempDir } from "../support/server.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

function fakeBuild(): string {
  const dir = tempDir("app-build-");
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>app</title>");
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "assets", "main-abc.js"), "export {}");
  return dir;
}

it("L10: index.html is sent with the policy by the server and by the bridge; script-src has no inline or eval", async () => {
  expect(APP_CONTENT_SECURITY_POLICY).toMatch(/script-src 'self'[^;]*;/);
  expect(APP_CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
  expect(APP_CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
  const appDir = fakeBuild();
  const server = closing.own(await startTestServer({}, { appDir }));
  const page = await server.runtime.app.inject({ method: "GET", url: "/" });
  expect(page.statusCode).toBe(200);
  expect(page.headers["content-security-policy"]).toBe(APP_CONTENT_SECURITY_POLICY);
  const asset = await server.runtime.app.inject({ method: "GET", url: "/assets/main-abc.js" });
  expect(asset.statusCode).toBe(200);
  expect(asset.headers["content-security-policy"]).toBeUndefined();

  const bridge = closing.own(
    await startBridge({
      config: defaultBridgeConfig({ port: 0, dataDir: tempDir() }),
      log: new MemoryLogger(),
      sweepEveryMs: 0,
      appDir,
    }),
  );
  const viaBridge = await fetch(`${bridge.httpUrl}/`);
  expect(viaBridge.status).toBe(200);
  expect(viaBridge.headers.get("content-security-policy")).toBe(APP_CONTENT_SECURITY_POLICY);
  await viaBridge.text();
});
