// The server's long-term X25519 key pair (docs/security.md "Keys"): created at first start in DATA_DIR (0600, like
// every secret there), read at later starts. Its public half goes in pair_url and the QR code, so a device can tell
// this server's answers from a bridge's; its secret never leaves this file and this process.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { generateKeyPair, publicKeyOf, type KeyPair } from "../../client/wire/crypto/index.ts";
import { makePrivateDir, PRIVATE_FILE_MODE, restrictFile } from "../db/file-modes.ts";

export const SERVER_KEY_FILE = "server-key.json";

const fileSchema = z.object({ secret_key: z.string().regex(/^[A-Za-z0-9_-]{43}$/) });

export function ensureServerKey(dataDir: string): KeyPair {
  const file = join(dataDir, SERVER_KEY_FILE);
  if (existsSync(file)) {
    restrictFile(file);
    // A damaged key file is an operator's problem to look at, never a reason to quietly make a new identity
    // (every paired device would refuse the server): the parse error stops the start.
    const { secret_key } = fileSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    return { secretKey: secret_key, publicKey: publicKeyOf(secret_key) };
  }
  const pair = generateKeyPair();
  makePrivateDir(dataDir);
  writeFileSync(file, JSON.stringify({ secret_key: pair.secretKey }) + "\n", { mode: PRIVATE_FILE_MODE, flag: "wx" });
  return pair;
}
