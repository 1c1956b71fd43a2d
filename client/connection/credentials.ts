// What pairing yields and connect() needs. Kept in the app's storage adapter between runs; validated on the way
// back in, so a corrupted or older entry reads as "not paired" instead of crashing the app.
import { z } from "zod";
import { publicKeySchema } from "../wire/e2e.ts";
import { loadCrypto } from "../wire/crypto/load.ts";
import type { StorageAdapter } from "../storage/storage.ts";

export const credentialsSchema = z.object({
  /** The bridge's phoenix endpoint, e.g. ws://192.168.1.5:4000/socket. */
  bridge_url: z.string().min(1),
  server_id: z.string().min(1),
  device_id: z.string().min(1),
  device_token: z.string().min(1),
  /** The server's HTTP base URL, for snapshots, dismissals and the fallback feed. */
  server_url: z.string().min(1),
  /**
   * End-to-end encryption (docs/security.md): the device's X25519 secret key and the server key it trusts (pair_url's
   * `key`, or the one the pairing answer named, its fingerprint shown). Absent: a plain device.
   */
  e2e: z.object({ device_secret_key: publicKeySchema, server_key: publicKeySchema }).optional(),
});
export type Credentials = z.infer<typeof credentialsSchema>;

const CREDENTIALS_KEY = "credentials";

export async function saveCredentials(storage: StorageAdapter, credentials: Credentials): Promise<void> {
  await storage.setItem(CREDENTIALS_KEY, JSON.stringify(credentialsSchema.parse(credentials)));
}

export async function loadCredentials(storage: StorageAdapter): Promise<Credentials | undefined> {
  const text = await storage.getItem(CREDENTIALS_KEY);
  if (text === null) return undefined;
  try {
    // Read once a start, before its first render: without zod's compiled fast path, which a single parse does not
    // repay (docs/app.md "Start-up", SU15).
    const parsed = credentialsSchema.safeParse(JSON.parse(text), { jitless: true });
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export async function forgetCredentials(storage: StorageAdapter): Promise<void> {
  await storage.removeItem(CREDENTIALS_KEY);
}

/** The identity that owns per-connection state (dismissal cache, effect dedupe): one server, one device. */
export function connectionIdOf(credentials: Credentials): string {
  return `${credentials.server_id}/${credentials.device_id}`;
}

/**
 * The fingerprint of the server key an encrypting device trusts, to compare with `npm run pair` and the Devices
 * screen (it matters most after pairing by typed code); undefined for a plain device. Asynchronous because the
 * crypto loads on first use (wire/crypto/load.ts).
 */
export async function serverFingerprint(credentials: Credentials): Promise<string | undefined> {
  return credentials.e2e ? (await loadCrypto()).fingerprint(credentials.e2e.server_key) : undefined;
}
