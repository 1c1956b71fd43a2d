// docs/security.md "First run and the owner's tools": with a real server process, `npm run pair` works for the owner of DATA_DIR
// without ADMIN_TOKEN (the local admin token in DATA_DIR/local-admin.json, 0600), and `npm run admin-token -- --reset`
// makes a new admin token that the running server takes at once while the old one stops working.
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/server.ts";
import { killAll, run, type Run } from "./support/processes.ts";

const dirs: string[] = [];
const runs: Run[] = [];
afterEach(async () => {
  await killAll(runs);
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const devices = (url: string, token: string) =>
  fetch(`${url}/devices`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

describe("the owner's tools", { timeout: 120_000 }, () => {
  it("pairs without ADMIN_TOKEN and resets the admin token of a running server", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const env = {
      DATA_DIR: join(dir, "data"),
      CONFIG: "",
      ADMIN_TOKEN: "",
      PORT: "0",
      BRIDGE_URL: "",
      LOG_LEVEL: "silent",
    };
    const server = run(["server/main.ts"], env);
    runs.push(server);
    const [, oldToken] = await server.waitFor(/admin token \(shown once[^)]*\): (\S+)/);
    const [, url] = await server.waitFor(/server listening on (http:\/\/\S+)/);
    expect(statSync(join(dir, "data", "local-admin.json")).mode & 0o777).toBe(0o600);

    const pair = run(["scripts/pair.ts"], env);
    expect((await pair.exit).code).toBe(0);
    expect(pair.output()).toMatch(/pairing code: [0-9A-Z]{5}-[0-9A-Z]{5}/);

    const reset = run(["scripts/admin-token.ts", "--reset"], env);
    expect((await reset.exit).code).toBe(0);
    const newToken = reset.output().match(/admin token \(shown once[^)]*\): (\S+)/)![1]!;
    expect(newToken).not.toBe(oldToken);
    expect(await devices(url!, newToken)).toBe(200);
    expect(await devices(url!, oldToken!)).toBe(401);

    server.child.kill("SIGTERM");
    expect((await server.exit).code).toBe(0);
    // No server: pair says how to start one; a clean stop removed the local file.
    const orphan = run(["scripts/pair.ts"], env);
    expect((await orphan.exit).code).toBe(1);
    expect(orphan.output()).toMatch(/no server is running on .*start it with npm start, or set ADMIN_TOKEN/);
  });
});
