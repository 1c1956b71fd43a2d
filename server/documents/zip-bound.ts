// A zip's real unpacked size, bounded (docs/documents.md "Limits"): a DOCX is a zip, and a zip bomb (a few hundred KiB
// that inflate to gigabytes) would take the reader's memory. Each entry is inflated with zlib's maxOutputLength
// against what is left of the budget, so the check itself never holds more than the budget, and declared sizes (which
// can lie) are not trusted.
import { inflateRawSync } from "node:zlib";

/** The most a DOCX may unpack to, all entries together. */
export const MAX_UNPACKED_BYTES = 200 * 1024 * 1024;

export class ZipTooLarge extends Error {}

/** Throws ZipTooLarge when the archive unpacks to more than `budget` bytes; a malformed archive throws too. */
export function checkUnpackedSize(zip: Buffer, budget = MAX_UNPACKED_BYTES): void {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error("not a zip archive (no end of central directory)");
  const entries = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  let left = budget;
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error("a broken zip central directory");
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    let size: number;
    try {
      size = method === 0 ? data.length : inflateRawSync(data, { maxOutputLength: left + 1 }).length;
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new ZipTooLarge("unpacks to too much");
      throw error;
    }
    left -= size;
    if (left < 0) throw new ZipTooLarge("unpacks to too much");
    at += 46 + nameLength + extraLength + commentLength;
  }
}
