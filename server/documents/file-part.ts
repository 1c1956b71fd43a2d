// A part of a stored file, read from disk by its offset: the viewer's file route answers a document in parts
// (docs/documents.md "The original file"), and a part is all that is ever held in memory for it.
import { open } from "node:fs/promises";

/** Up to `length` bytes of the file from `offset` (fewer at its end, none past it); undefined when there is no file. */
export async function readFilePart(path: string, offset: number, length: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
