// Pairing codes: 10 Crockford base32 characters (50 bits), shown as XXXXX-XXXXX. Typeable (no I, L, O, U), and
// with at most a few hundred failed guesses per minute on the bridge, a 10-minute code cannot be guessed.
import { createHash, randomInt } from "node:crypto";
import { normalizePairingCode, PAIRING_CODE_ALPHABET } from "../../client/wire/frames.ts";

export const CODE_LENGTH = 10;

export function generatePairingCode(): string {
  let code = "";
  for (let i = 0; i < CODE_LENGTH; i++) code += PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** The only form in which the server and the bridge keep a code: SHA-256 of its normalised text. */
export function hashPairingCode(code: string): string {
  return createHash("sha256").update(normalizePairingCode(code), "utf8").digest("hex");
}
