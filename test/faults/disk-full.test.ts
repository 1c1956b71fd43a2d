// A full disk (docs/testing.md "Faults"): the runtime writes a person's files through a seam (server/db/disk.ts)
// that here fails with ENOSPC once armed. An image upload, an import being received and an import storing its
// images each answer 507 insufficient_storage, leave no file behind, and lose nothing committed before: the chats
// already there stay, and an import keeps the chats it had stored whole before the disk filled.
import { createWriteStream, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DiskWrites } from "../../server/db/disk.ts";
import { chatRecord, upload } from "../export/support.ts";
import { listen, type Api } from "../search/support.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 });
}

/** node:fs until `full` is set; then every write fails as a full disk does: the file made, no byte written. */
function fillableDisk(): DiskWrites & { full: boolean } {
  const disk = {
    full: false,
    writeFileSync: ((...args: Parameters<typeof writeFileSync>) => {
      if (!disk.full) return writeFileSync(...args);
      // Like a real full disk: the file is made, its bytes are not.
      writeFileSync(args[0], "");
      throw enospc();
    }) as typeof writeFileSync,
    createWriteStream: ((...args: Parameters<typeof createWriteStream>) => {
      const real = createWriteStream(...args);
      if (!disk.full) return real;
      // The file is opened (as on a real disk), and the first write fails.
      return new Writable({
        write: (_chunk, _encoding, done) => done(enospc()),
        // Closed once the real file is (as a real stream is), so nothing is made after the caller removed it.
        destroy: (error, done) => {
          real.once("close", () => done(error));
          real.destroy();
        },
      });
    }) as typeof createWriteStream,
  };
  return disk;
}

const record = (n: number, assets: unknown[] = []) => chatRecord(n, { assets });

let server: TestServer;
let api: Api;
let disk: ReturnType<typeof fillableDisk>;
beforeEach(async () => {
  disk = fillableDisk();
  server = await startTestServer({}, { disk });
  api = await listen(server);
});
afterEach(() => server.close());

const sourceIds = async () =>
  ((await api.call("GET", "/export")).json as Array<{ source_id: string }>).map((r) => r.source_id);
const filesIn = (dir: string) => readdirSync(join(server.dataDir, dir), { recursive: true });

describe("a full disk", () => {
  it("answers an upload in parts 507 when it cannot be made or a part cannot be written, and keeps no file of it", async () => {
    const declare = () =>
      api.call("POST", "/uploads", { kind: "document", name: "a.txt", content_type: "text/plain", bytes: 5 });
    disk.full = true;
    expect((await declare()).json.error.code).toBe("insufficient_storage");
    expect(filesIn("uploads")).toEqual([]);
    disk.full = false;
    const id = (await declare()).json.upload_id as string;
    disk.full = true;
    const part = await api.call("PUT", `/uploads/${id}/parts/0`, {
      data_base64: Buffer.from("hello").toString("base64"),
    });
    expect(part.status).toBe(507);
    expect(part.json.error.code).toBe("insufficient_storage");
    expect(filesIn("uploads")).toEqual([]);
    expect((await api.call("POST", `/uploads/${id}/complete`)).json.error.code).toBe("upload_not_found");
  });

  it("answers an image upload 507 insufficient_storage, keeps no file and no row, and takes the next once there is room", async () => {
    const sid = (await api.call("POST", "/sessions", {})).json.session.id as string;
    const store = () =>
      server.request({
        method: "POST",
        url: `/sessions/${sid}/extensions/reference_compatible_attachments/store_attachment`,
        payload: { data_base64: PNG, media_type: "image/png" },
      });
    disk.full = true;
    const refused = await store();
    expect(refused.status).toBe(507);
    expect(refused.json.error.code).toBe("insufficient_storage");
    expect(server.runtime.ctx.db.prepare("SELECT count(*) AS n FROM assets").get()).toEqual({ n: 0 });
    expect(filesIn("assets")).toEqual([sid]);
    disk.full = false;
    expect((await store()).status).toBe(201);
  });

  it("answers an import whose upload cannot be written 507, keeps no temporary file, and loses no chat", async () => {
    expect((await upload(api.url, [`[${JSON.stringify(record(1))}]`])).json).toMatchObject({ imported: 1 });
    disk.full = true;
    const refused = await upload(api.url, [`[${JSON.stringify(record(2))}]`]);
    expect(refused.status).toBe(507);
    expect(refused.json.error.code).toBe("insufficient_storage");
    expect(filesIn("imports")).toEqual([]);
    expect(await sourceIds()).toEqual(["test:1"]);
  });

  it("answers an import that fills the disk while storing images 507; the chats stored before stay whole", async () => {
    const image = (n: number) => ({ asset_id: `ast_${String(n).repeat(32)}`, media_type: "image/png", data: PNG });
    const file = `[${[record(1), record(2, [image(2)]), record(3, [image(3)])].map((r) => JSON.stringify(r)).join(",")}]`;
    // The upload is received whole; the disk fills when the first image is written.
    const writeFile = disk.writeFileSync;
    disk.writeFileSync = ((...args: Parameters<typeof writeFileSync>) => {
      disk.full = true;
      return writeFile(...args);
    }) as typeof writeFileSync;
    const refused = await upload(api.url, [file]);
    expect(refused.status).toBe(507);
    expect(refused.json.error.code).toBe("insufficient_storage");
    expect(await sourceIds()).toEqual(["test:1"]);
    expect(server.runtime.ctx.db.prepare("SELECT count(*) AS n FROM assets").get()).toEqual({ n: 0 });
    expect(filesIn("assets")).toEqual([]);
    // With room again the same file imports the rest; the chat already in is skipped.
    disk.writeFileSync = writeFile;
    disk.full = false;
    expect((await upload(api.url, [file])).json).toMatchObject({ imported: 2, skipped: 1 });
  });
});
