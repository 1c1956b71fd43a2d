// Writing a person's files into DATA_DIR (an uploaded image, an import being received), and what a full disk answers.
// Those writes go through a DiskWrites, node:fs by default, so a test can hand the runtime one whose write fails
// with ENOSPC (RuntimeOptions.disk). A full disk or quota is answered 507 insufficient_storage: the caller has
// removed what it had half written, and what was committed before stays.
import { createWriteStream, writeFileSync } from "node:fs";
import { insufficientStorage } from "../errors.ts";

export interface DiskWrites {
  writeFileSync: typeof writeFileSync;
  createWriteStream: typeof createWriteStream;
}

export const nodeDisk: DiskWrites = { writeFileSync, createWriteStream };

/** No space left on the device, or the user's quota used up. */
const FULL = new Set(["ENOSPC", "EDQUOT"]);

export function isDiskFull(error: unknown): boolean {
  return error instanceof Error && FULL.has((error as NodeJS.ErrnoException).code ?? "");
}

/** A full disk as 507 insufficient_storage; any other error as it is. */
export function asDiskFull(error: unknown): unknown {
  if (!isDiskFull(error)) return error;
  return insufficientStorage(
    "insufficient_storage",
    "the server's disk is full: nothing of this was kept; free space on the server and send again",
  );
}
