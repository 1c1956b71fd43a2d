// The admin token's hash file and the owner's local-admin file (server/auth/admin-token.ts, local-admin.ts) in a
// real temp folder, called directly: which token wins, what is written (only a hash; 0600; whole or not at all), and
// what a reader treats as absent. Fast on purpose: mutation testing runs these for every mutant of the two files.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  ADMIN_TOKEN_FILE,
  ensureAdminToken,
  readAdminTokenHash,
  resetAdminToken,
} from "../../server/auth/admin-token.ts";
import {
  LOCAL_ADMIN_FILE,
  readLocalAdmin,
  removeLocalAdmin,
  writeLocalAdmin,
  writePrivateFileAtomically,
  type LocalAdmin,
} from "../../server/auth/local-admin.ts";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { tempDir } from "../support/temp-dir.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}
const mode = (file: string) => statSync(file).mode & 0o777;

describe("the admin token", () => {
  it("from the environment is hashed and nothing is written", () => {
    const dir = folder();
    expect(ensureAdminToken(dir, "from-env")).toEqual({ hash: sha256Hex("from-env"), generated: undefined });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("is generated once at first start, kept only as its hash (0600), and read at the next start", () => {
    const dir = join(folder(), "data");
    const first = ensureAdminToken(dir, undefined);
    expect(first.generated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.hash).toBe(sha256Hex(first.generated!));
    const file = join(dir, ADMIN_TOKEN_FILE);
    expect(readFileSync(file, "utf8")).toBe(`${first.hash}\n`);
    expect(mode(file)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(ensureAdminToken(dir, undefined)).toEqual({ hash: first.hash, generated: undefined });
    expect(ensureAdminToken(dir, "")).toEqual({ hash: first.hash, generated: undefined });
  });

  it("hash file left readable is tightened when read; none is undefined", () => {
    const dir = folder();
    expect(readAdminTokenHash(dir)).toBeUndefined();
    writeFileSync(join(dir, ADMIN_TOKEN_FILE), "  abc  \n", { mode: 0o644 });
    expect(readAdminTokenHash(dir)).toBe("abc");
    expect(mode(join(dir, ADMIN_TOKEN_FILE))).toBe(0o600);
  });

  it("reset replaces the hash whole and returns the new token", () => {
    const dir = folder();
    const first = ensureAdminToken(dir, undefined).generated!;
    const next = resetAdminToken(dir);
    expect(next).not.toBe(first);
    expect(readAdminTokenHash(dir)).toBe(sha256Hex(next));
    expect(readdirSync(dir)).toEqual([ADMIN_TOKEN_FILE]);
  });
});

describe("the local-admin file", () => {
  const local = (pid: number): LocalAdmin => ({
    url: "http://127.0.0.1:8787",
    token: "t".repeat(32),
    pid,
    admin_token_from_environment: false,
  });

  it("is written whole, 0600, and read back while its process lives", () => {
    const dir = join(folder(), "data");
    writeLocalAdmin(dir, local(process.pid));
    expect(mode(join(dir, LOCAL_ADMIN_FILE))).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(readdirSync(dir)).toEqual([LOCAL_ADMIN_FILE]);
    expect(readFileSync(join(dir, LOCAL_ADMIN_FILE), "utf8").endsWith("}\n")).toBe(true);
    expect(readLocalAdmin(dir)).toEqual(local(process.pid));
  });

  it("is absent when missing, invalid, or its process is dead; throws when unreadable", () => {
    const dir = folder();
    expect(readLocalAdmin(dir)).toBeUndefined();
    writeLocalAdmin(dir, local(2 ** 22 + 1)); // above Linux's pid_max: no such process
    expect(readLocalAdmin(dir)).toBeUndefined();
    writeFileSync(join(dir, LOCAL_ADMIN_FILE), JSON.stringify({ ...local(process.pid), token: "short" }));
    expect(readLocalAdmin(dir)).toBeUndefined();
    rmSync(join(dir, LOCAL_ADMIN_FILE));
    mkdirSync(join(dir, LOCAL_ADMIN_FILE)); // reading it fails with EISDIR, not ENOENT
    expect(() => readLocalAdmin(dir)).toThrow(/EISDIR/);
  });

  it("of a live process of another user (kill answers EPERM) is present", () => {
    const dir = folder();
    writeLocalAdmin(dir, local(1));
    // pid 1 is root's init: signalling it is EPERM for any other user. Root may signal every process, so as root the
    // kernel's answer is given by hand.
    const kill = vi.spyOn(process, "kill");
    if (process.getuid?.() === 0)
      kill.mockImplementation(() => {
        throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
      });
    try {
      expect(readLocalAdmin(dir)).toEqual(local(1));
      expect(kill).toHaveBeenCalledWith(1, 0);
    } finally {
      kill.mockRestore();
    }
  });

  it("is removed only by its own process", () => {
    const dir = folder();
    writeLocalAdmin(dir, local(process.pid));
    removeLocalAdmin(dir, process.pid + 1);
    expect(existsSync(join(dir, LOCAL_ADMIN_FILE))).toBe(true);
    removeLocalAdmin(dir);
    expect(existsSync(join(dir, LOCAL_ADMIN_FILE))).toBe(false);
    expect(() => removeLocalAdmin(dir)).not.toThrow();
  });

  it("writePrivateFileAtomically leaves no temporary file", () => {
    const dir = folder();
    writePrivateFileAtomically(join(dir, "f"), "x");
    expect(readdirSync(dir)).toEqual(["f"]);
    expect(mode(join(dir, "f"))).toBe(0o600);
  });
});
