// The offline shell's version, which names the service worker's cache (docs/app.md "Offline", OF17): a digest of every
// file the shell holds, its path and its bytes as the build writes them, in path order. A device installs the shell
// again exactly when a file of it changed, also when the change keeps the file's name (the build's last passes over
// the entry, terser and the compile hint, come after its name was hashed), and not when the same build is made again
// (the bundler lists the files in an order that varies from build to build).
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

export interface ShellFile {
  /** Path relative to the app's root. */
  path: string;
  bytes: Uint8Array | string;
}

/** 16 hex digits of the SHA-256 over each file's path and bytes, each length-prefixed, in path order. */
export function shellVersion(files: readonly ShellFile[]): string {
  const digest = sha256.create();
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    for (const part of [
      utf8ToBytes(file.path),
      typeof file.bytes === "string" ? utf8ToBytes(file.bytes) : file.bytes,
    ]) {
      digest.update(lengthOf(part)).update(part);
    }
  }
  return bytesToHex(digest.digest()).slice(0, 16);
}

/** A part's length as 4 bytes, so two files' bytes never read as one. */
function lengthOf(part: Uint8Array): Uint8Array {
  return new Uint8Array(new Uint32Array([part.length]).buffer);
}
