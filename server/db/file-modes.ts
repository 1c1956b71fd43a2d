// DATA_DIR is private to the server's user: it holds the bridge credential (in server.sqlite), the admin token's
// hash and users' images. Folders are 0700 and files 0600 when created, and a data dir left looser (by an older
// version, a copy, a restore) is tightened at start. Only what the server owns is touched: DATA_DIR may be shared.
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) 0700, and makes an existing one 0700. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Makes `file` 0600 if it exists. */
export function restrictFile(file: string): void {
  if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
}

/** Creates `file` empty and 0600 when missing, so whatever fills it later (SQLite) keeps that mode. */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** Makes every folder under `root` (itself included) 0700 and every file 0600; symbolic links are left alone. */
export function restrictTree(root: string): void {
  if (!existsSync(root)) return;
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    chmodSync(dir, PRIVATE_DIR_MODE);
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      const stat = lstatSync(path);
      if (stat.isDirectory()) pending.push(path);
      else if (stat.isFile()) chmodSync(path, PRIVATE_FILE_MODE);
    }
  }
}
