import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startCheckpointer } from "../../server/db/checkpointer.ts";
import { openDatabase } from "../../server/db/database.ts";
import { tempDir } from "../support/server.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Writes 40 transactions of 500 events; with the worker, each is followed by one of its checkpoints. */
async function write(file: string, withWorker: boolean): Promise<number> {
  const db = openDatabase(file);
  const checkpointer = withWorker ? startCheckpointer(db, file, 60_000) : undefined;
  if (!withWorker) db.pragma("wal_autocheckpoint = 0");
  expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
  const insert = db.prepare("INSERT INTO events (type, created_at, body) VALUES ('checkpoint', 0, ?)");
  const body = JSON.stringify({ type: "checkpoint", padding: "x".repeat(400) });
  for (let batch = 0; batch < 40; batch++) {
    db.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run(body);
    })();
    await checkpointer?.checkpointNow();
  }
  const walBytes = statSync(`${file}-wal`).size;
  await checkpointer?.stop();
  if (withWorker) expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000); // handed back on stop
  db.close();
  return walBytes;
}

describe("checkpoint worker", () => {
  it("keeps the WAL from growing while the main connection takes no automatic checkpoints", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const unbounded = await write(join(dir, "without.sqlite"), false);
    const bounded = await write(join(dir, "with.sqlite"), true);
    expect(unbounded).toBeGreaterThan(8_000_000); // ~20,000 rows of ~450 bytes all still in the WAL
    expect(bounded).toBeLessThan(unbounded / 10); // the WAL is reused after each checkpoint: about one batch
  });
});
