// Wire shapes of end-to-end encryption (docs/security.md): what the bridge carries and keeps in place of plaintext.
// The bridge sees these fields and nothing inside them; the crypto that fills them is client/wire/crypto/.
import { z } from "zod";
import { lazySchema } from "./built-on-first-use.ts";
import { eventIdSchema } from "./event-id.ts";
import { PUT_ONLY_FOR_PARTS, relayMethodFits, relayMethodSchema } from "./relay-methods.ts";

const base64UrlSchema = (max: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/, "base64url")
    .min(1)
    .max(max);

/** An X25519 public key, base64url without padding (32 bytes = 43 characters). */
export const publicKeySchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "a 32-byte base64url key");

/** Which events a device gets: `e2e` sealed (it paired with a key), `plain` the event itself (a stock client). */
export const deviceModeSchema = z.enum(["e2e", "plain"]);
export type DeviceMode = z.infer<typeof deviceModeSchema>;

export const sealedSchema = lazySchema(() =>
  z.object({ nonce: base64UrlSchema(32), ciphertext: base64UrlSchema(2 * 1024 * 1024) }),
);

/** A sealed box to a device's public key (content keys, the pairing answer's credentials use `sealed`). */
export const sealedBoxSchema = lazySchema(() => sealedSchema.unwrap().extend({ ephemeral: publicKeySchema }));

/**
 * An event as an encrypting device gets it (push `sealed_event`) and as the bridge keeps it: the id in clear (order,
 * replay and gaps work on it), the content key's id, and the XChaCha20-Poly1305 ciphertext of the event's JSON.
 */
export const sealedEventSchema = lazySchema(() =>
  z.strictObject({
    event_id: eventIdSchema,
    key_id: z.number().int().positive(),
    nonce: base64UrlSchema(32),
    ciphertext: base64UrlSchema(2 * 1024 * 1024),
  }),
);
export type SealedEvent = z.infer<typeof sealedEventSchema>;

/** One content key sealed to one device (GET /e2e/keys). */
export const sealedContentKeySchema = lazySchema(() =>
  z.object({ key_id: z.number().int().positive(), box: sealedBoxSchema }),
);
export type SealedContentKey = z.infer<typeof sealedContentKeySchema>;

export const contentKeysAnswerSchema = lazySchema(() =>
  z.object({ keys: z.array(sealedContentKeySchema).max(10_000) }),
);

/** Relayed calls of an encrypting device: `api` {method: POST, path: E2E_RELAY_PATH, body: sealed}. */
export const E2E_RELAY_PATH = "/e2e/relay";

/** What a sealed relayed request holds: a fresh id and the time it was made (replays are refused), and the call. */
export const innerRequestSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
      ts: z.number().int().nonnegative(),
      method: relayMethodSchema,
      path: z.string().min(1).max(2048),
      body: z.unknown().optional(),
    })
    .refine(relayMethodFits, PUT_ONLY_FOR_PARTS),
);
export type InnerRequest = z.infer<typeof innerRequestSchema>;

/** The credentials the server seals for the device that paired with a key (the bridge never learns the token). */
export const sealedCredentialsSchema = lazySchema(() =>
  z.object({
    server_id: z.string(),
    device_id: z.string(),
    device_token: z.string(),
    server_url: z.string(),
  }),
);
