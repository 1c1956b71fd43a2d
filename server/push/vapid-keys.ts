// The server's VAPID key pair (RFC 8292): made at the first start with push configured and kept in DATA_DIR (0600,
// like every secret there). Browsers bind a subscription to the public half, so a new pair would orphan every
// subscription: a damaged file stops the start instead of being replaced quietly.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import webpush from "web-push";
import { z } from "zod";
import { makePrivateDir, PRIVATE_FILE_MODE, restrictFile } from "../db/file-modes.ts";

export const VAPID_KEY_FILE = "push-vapid.json";

export interface VapidKeys {
  /** Uncompressed P-256 point, base64url (what PushManager.subscribe takes as applicationServerKey). */
  publicKey: string;
  privateKey: string;
}

const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/);
const fileSchema = z.object({ public_key: base64url.length(87), private_key: base64url.length(43) });

export function ensureVapidKeys(dataDir: string): VapidKeys {
  const file = join(dataDir, VAPID_KEY_FILE);
  if (existsSync(file)) {
    restrictFile(file);
    const { public_key, private_key } = fileSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    return { publicKey: public_key, privateKey: private_key };
  }
  const keys = webpush.generateVAPIDKeys();
  makePrivateDir(dataDir);
  const body = JSON.stringify({ public_key: keys.publicKey, private_key: keys.privateKey }) + "\n";
  writeFileSync(file, body, { mode: PRIVATE_FILE_MODE, flag: "wx" });
  return keys;
}
