// docs/security.md "Server id": the id devices were paired under does not change under them. A config that sets
// another one is refused at start with one line naming server.server_id and the ways out, while live devices exist.
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../server/config/load.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";

const dirs: string[] = [];
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close(true);
  server = undefined;
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

async function startOn(dataDir: string, serverId?: string): Promise<TestServer> {
  server = await startTestServer(serverId ? { server: { server_id: serverId } } : {}, { dataDir });
  return server;
}

async function restartOn(dataDir: string, serverId?: string): Promise<TestServer> {
  await server?.close(true);
  server = undefined;
  return startOn(dataDir, serverId);
}

function pairOne(s: TestServer): string {
  const { code } = s.runtime.ctx.pairing.createCode();
  const redeemed = s.runtime.ctx.pairing.redeem(code, "phone");
  if (!redeemed.ok) throw new Error(redeemed.reason);
  return redeemed.device_id;
}

describe("server.server_id", () => {
  it("refuses a new id while devices paired under the generated one exist, with one line and the way out", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = await startOn(dir);
    const generated = first.runtime.ctx.serverId;
    pairOne(first);
    await first.close(true);
    server = undefined;
    const refusal = await startOn(dir, "home").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ConfigError);
    const line = (refusal as Error).message;
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toMatch(/^config error at server\.server_id: /);
    expect(line).toContain(`"${generated}"`);
    expect(line).toMatch(/remove it|revoke/);
    // The way out: without the key the server starts under the id its devices know.
    expect((await startOn(dir)).runtime.ctx.serverId).toBe(generated);
  });

  it("takes a new id once no live device is left, and keeps it when the key is removed again", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const first = await startOn(dir, "home");
    expect(first.runtime.ctx.serverId).toBe("home");
    first.runtime.ctx.pairing.revoke(pairOne(first));
    expect((await restartOn(dir, "cabin")).runtime.ctx.serverId).toBe("cabin");
    pairOne(server!);
    expect((await restartOn(dir)).runtime.ctx.serverId).toBe("cabin");
    expect((await restartOn(dir, "cabin")).runtime.ctx.serverId).toBe("cabin");
  });
});

describe("server.server_id on a database from before the check", () => {
  it("takes the configured id the older version used, with its devices, without refusing", async () => {
    const dir = tempDir();
    dirs.push(dir);
    // An older version: a generated id in meta from a start without config, then the config's "home", devices paired.
    const first = await startOn(dir);
    pairOne(first);
    first.runtime.ctx.db.prepare("DELETE FROM meta WHERE key = 'server_id_in_use'").run();
    expect((await restartOn(dir, "home")).runtime.ctx.serverId).toBe("home");
    // From now on "home" is the id in use: the generated one would strand the devices.
    const refusal = await restartOn(dir, first.runtime.ctx.serverId).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ConfigError);
  });
});
