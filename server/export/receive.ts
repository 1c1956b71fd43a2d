// Receives POST /import's body into a private temporary file (docs/export.md "Import"), counting bytes as they come:
// past `maxBytes` the upload stops at once with 413, so a hostile body costs at most that much disk, never memory.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { finished, pipeline } from "node:stream/promises";
import { asDiskFull, nodeDisk, type DiskWrites } from "../db/disk.ts";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../db/file-modes.ts";
import { tooLarge } from "../errors.ts";

/** DATA_DIR's folder of uploads being imported. */
export const IMPORTS_DIR = "imports";

export interface Received {
  file: string;
  bytes: number;
  /** Removes the file; call when the import is done, whatever happened. */
  remove(): void;
}

export function tooLargeError(maxBytes: number) {
  return tooLarge("payload_too_large", `the import is larger than import.max_bytes (${maxBytes} bytes)`, {
    max_bytes: maxBytes,
  });
}

export async function receiveToFile(
  body: Readable,
  dataDir: string,
  maxBytes: number,
  disk: DiskWrites = nodeDisk,
): Promise<Received> {
  const dir = join(dataDir, IMPORTS_DIR);
  makePrivateDir(dir);
  const file = join(dir, `${randomUUID()}.json`);
  const remove = () => rmSync(file, { force: true });
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? tooLargeError(maxBytes) : null, chunk);
    },
  });
  const sink = disk.createWriteStream(file, { mode: PRIVATE_FILE_MODE });
  try {
    await pipeline(body, counter, sink);
  } catch (error) {
    // The pipeline can reject before the file is even opened; removing it then would leave the file the open makes.
    await finished(sink).catch(() => {});
    remove();
    throw asDiskFull(error);
  }
  return { file, bytes, remove };
}
