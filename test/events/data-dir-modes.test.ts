// docs/events.md E20: DATA_DIR holds the bridge credential (in server.sqlite), the admin token's hash and users'
// images, so it and everything the server writes in it are private to the server's user: folders 0700, files
// 0600 (SQLite's WAL and SHM files included), when created and, for a data dir left loose, at the next start.
import { chmodSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN_FILE } from "../../server/auth/admin-token.ts";
import { DATABASE_FILE } from "../../server/runtime.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Mode bits of every folder and file under `dir`, the folder itself included, by path relative to it. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { ".": (statSync(dir).mode & 0o777).toString(8) };
  for (const entry of readdirSync(dir, { recursive: true }) as string[])
    out[entry] = (statSync(join(dir, entry)).mode & 0o777).toString(8);
  return out;
}

/** Starts a server on `dataDir` with a generated admin token, so its hash file is written too; stores one image. */
async function startAndWrite(dataDir: string): Promise<void> {
  server = await startTestServer({}, { dataDir, adminToken: undefined });
  const session = server.runtime.ctx.sessions.create(undefined);
  server.runtime.ctx.assets!.store(session.id, PNG, "image/png", undefined);
}

const privately = (entries: Record<string, string>, dataDir: string) =>
  Object.fromEntries(
    Object.keys(entries).map((path) => [path, statSync(join(dataDir, path)).isDirectory() ? "700" : "600"]),
  );

describe("DATA_DIR modes", () => {
  it("creates the folder 0700 and every file in it 0600: database, WAL, SHM, admin token hash, assets", async () => {
    const dataDir = join(tempDir(), "data");
    await startAndWrite(dataDir);
    const found = modes(dataDir);
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, ADMIN_TOKEN_FILE, "assets"])
      expect(found).toHaveProperty([file]);
    expect(found).toEqual(privately(found, dataDir));
  });

  it("makes a data dir left world-readable private again at the next start", async () => {
    const dataDir = join(tempDir(), "data");
    await startAndWrite(dataDir);
    await server!.close(true);
    server = undefined;
    for (const path of Object.keys(modes(dataDir))) {
      const full = join(dataDir, path);
      if (existsSync(full)) chmodSync(full, statSync(full).isDirectory() ? 0o755 : 0o644);
    }
    await startAndWrite(dataDir);
    const found = modes(dataDir);
    expect(found).toEqual(privately(found, dataDir));
  });
});
