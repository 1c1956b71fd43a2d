// Moves WAL checkpoints off the event loop. With SQLite's automatic checkpoint, the commit that crosses the
// threshold copies the WAL back into the database file inside the commit, on the main thread: a stall of tens
// to hundreds of milliseconds that every streamed token behind it waits for (measured by scripts/bench/runner.ts).
// Here a worker thread with its own connection runs PASSIVE checkpoints on a timer; PASSIVE never blocks a
// writer, and WAL's snapshot isolation keeps readers on the main connection consistent. If the worker fails,
// the main connection takes automatic checkpoints back, so the WAL can never grow without bound.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { Db } from "./database.ts";

export interface Checkpointer {
  /** Runs one checkpoint in the worker now and resolves when it is done (tests; shutdown). */
  checkpointNow(): Promise<void>;
  /**
   * Checkpoints the whole WAL into the database file and truncates the WAL to zero bytes, so no page an erasure
   * overwrote stays behind in it (docs/sessions.md "Delete"). Resolves false when a reader or writer kept it from
   * finishing within the worker's busy timeout (the next erasure or a clean stop will do it).
   */
  truncate(): Promise<boolean>;
  stop(): Promise<void>;
}

const AUTOMATIC_PAGES = 1000; // SQLite's default threshold, restored if the worker goes away

// Plain CommonJS, evaluated in the worker, so it needs no TypeScript loader whoever started the process.
const WORKER_SOURCE = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 1000");
const checkpoint = () => { try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {} };
const truncate = () => { try { return db.pragma("wal_checkpoint(TRUNCATE)")[0].busy === 0; } catch { return false; } };
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message === "truncate") return parentPort.postMessage(truncate() ? "done" : "busy");
  checkpoint();
  if (message === "stop") { clearInterval(timer); db.close(); parentPort.close(); }
  else parentPort.postMessage("done");
});
`;

export function startCheckpointer(
  db: Db,
  file: string,
  intervalMs = 250,
  onFailure: (error: unknown) => void = () => {},
): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, intervalMs, driver: createRequire(import.meta.url).resolve("better-sqlite3") },
  });
  db.pragma("wal_autocheckpoint = 0");
  let stopped = false;
  let failed = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const fallBack = (error: unknown) => {
    if (stopped) return;
    failed = true;
    if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOMATIC_PAGES}`);
    onFailure(error);
  };
  worker.once("error", fallBack);
  worker.once("exit", (code) => fallBack(new Error(`checkpoint worker exited (${code})`)));
  worker.unref();
  return {
    checkpointNow() {
      return new Promise<void>((resolve) => {
        worker.once("message", () => resolve());
        worker.postMessage("checkpoint");
      });
    },
    truncate() {
      if (stopped || !db.open) return Promise.resolve(false);
      if (failed) return Promise.resolve(truncateHere(db));
      return new Promise<boolean>((resolve) => {
        worker.once("message", (answer) => resolve(answer === "done"));
        worker.postMessage("truncate");
      });
    },
    async stop() {
      if (stopped) return exited;
      stopped = true;
      // Unref'd so it never holds the process open; while we wait for it to finish, it must.
      worker.ref();
      worker.postMessage("stop");
      await exited;
      if (db.open) db.pragma(`wal_autocheckpoint = ${AUTOMATIC_PAGES}`);
    },
  };
}

/** The truncation on the main connection, when the worker is gone. */
function truncateHere(db: Db): boolean {
  try {
    return (db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>)[0]!.busy === 0;
  } catch {
    return false;
  }
}
