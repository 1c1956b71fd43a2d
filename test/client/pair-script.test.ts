// `npm run pair` (scripts/pair.ts) against a listening server: it shows pair_url as the terminal QR code and
// prints the link, the code and its expiry (C38). Spawning node with tsx is slow on a loaded machine: the test
// gets a generous timeout (nothing here is timed).
import { execFile } from "node:child_process";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { ADMIN_TOKEN, startTestServer, tempDir, type TestServer } from "../support/server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
let server: TestServer | undefined;
afterEach(() => server?.close());

function runPair(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/pair.ts"],
      { cwd: root, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("npm run pair", () => {
  it("renders pair_url as the QR code and prints it with the code and the expiry", { timeout: 120_000 }, async () => {
    server = await startTestServer(
      { server: { public_url: "http://192.168.1.5:8787" } },
      { bridgeUrl: "ws://127.0.0.1:9/socket", bridgePublicUrl: "ws://192.168.1.5:4000/socket" },
    );
    await server.runtime.app.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(server.runtime.app.server.address() as AddressInfo).port}`;
    const run = await runPair({ ADMIN_TOKEN, SERVER_URL: url });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const link =
      /(http:\/\/192\.168\.1\.5:8787\/#\/pair\?code=([A-Z0-9-]+)&bridge=ws%3A%2F%2F192\.168\.1\.5%3A4000%2Fsocket)/.exec(
        run.stdout,
      );
    expect(link, run.stdout).not.toBeNull();
    expect(run.stdout).toContain(`pairing code: ${link![2]}`);
    expect(run.stdout).toMatch(/expires at: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/);
    // The QR code's block characters come before the text.
    expect(run.stdout.indexOf("▄")).toBeGreaterThan(-1);
    expect(run.stdout.indexOf("▄")).toBeLessThan(run.stdout.indexOf("pairing code"));
  });

  it(
    "says what is missing without ADMIN_TOKEN and without a server running on DATA_DIR",
    { timeout: 120_000 },
    async () => {
      const dataDir = tempDir();
      const run = await runPair({ ADMIN_TOKEN: "", SERVER_URL: "http://127.0.0.1:9", DATA_DIR: dataDir });
      rmSync(dataDir, { recursive: true, force: true });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^no server is running on .*: start it with npm start, or set ADMIN_TOKEN/);
    },
  );
});
