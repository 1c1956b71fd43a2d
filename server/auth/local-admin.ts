// The owner's local key to a running server (docs/security.md "First run and the owner's tools"), as `jupyter server list` has:
// each start makes a fresh admin-equivalent token, and once listening writes it with the server's loopback URL and
// pid to DATA_DIR/local-admin.json (0600, in the 0700 DATA_DIR). Whoever can read that file can already read the
// database, so it grants nothing new; it lets `npm run pair` and `npm start`'s first-run link work without
// ADMIN_TOKEN. A clean stop removes it; a crash leaves one whose pid is dead, which readers treat as absent.
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../db/file-modes.ts";

export const LOCAL_ADMIN_FILE = "local-admin.json";

export const localAdminSchema = z.object({
  /** Where this machine reaches the server (loopback when it listens on every interface). */
  url: z.string().url(),
  token: z.string().min(32),
  pid: z.number().int().positive(),
  /** ADMIN_TOKEN came from the environment: the hash file in DATA_DIR is not what the server checks. */
  admin_token_from_environment: z.boolean(),
});
export type LocalAdmin = z.infer<typeof localAdminSchema>;

/** Writes the file whole or not at all (a reader never sees half of it), 0600 from its first byte. */
export function writePrivateFileAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: PRIVATE_FILE_MODE });
  renameSync(temporary, file);
}

export function writeLocalAdmin(dataDir: string, local: LocalAdmin): void {
  makePrivateDir(dataDir);
  writePrivateFileAtomically(join(dataDir, LOCAL_ADMIN_FILE), JSON.stringify(local) + "\n");
}

/** The file of a live server, or undefined when there is none or its process is gone. Throws when unreadable. */
export function readLocalAdmin(dataDir: string): LocalAdmin | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, LOCAL_ADMIN_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const parsed = localAdminSchema.safeParse(JSON.parse(text));
  if (!parsed.success || !isAlive(parsed.data.pid)) return undefined;
  return parsed.data;
}

/** Removes the file if it is still this process's (a newer server on the same DATA_DIR may have replaced it). */
export function removeLocalAdmin(dataDir: string, pid: number = process.pid): void {
  try {
    const current = localAdminSchema.safeParse(JSON.parse(readFileSync(join(dataDir, LOCAL_ADMIN_FILE), "utf8")));
    if (current.success && current.data.pid === pid) rmSync(join(dataDir, LOCAL_ADMIN_FILE), { force: true });
  } catch {
    // Already gone or unreadable: nothing of ours to remove.
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's; the file's mode already keeps other users out.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
