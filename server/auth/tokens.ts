// Bearer tokens are random 256-bit values; only their SHA-256 is stored (client/wire/crypto/token-hash.ts, the form
// the bridge checks them in too).
import { randomBytes } from "node:crypto";

export function generateToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
