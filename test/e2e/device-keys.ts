// What a device can read, for the end-to-end suites: the content keys it can fetch with its token now (what a stolen
// phone holds), and which sealed events those keys open.
import { expect } from "vitest";
import type { Credentials } from "../../client/index.ts";
import { openContentKey, openEvent } from "../../client/wire/crypto/index.ts";
import { contentKeysAnswerSchema, type SealedEvent } from "../../client/wire/e2e.ts";
import type { Stack } from "../client/support/stack.ts";

/** Every content key a device can fetch now, opened with its own secret. */
export async function keysOf(stack: Stack, credentials: Credentials): Promise<Map<number, Uint8Array>> {
  const answer = await stack.server.request({ method: "GET", url: "/e2e/keys", token: credentials.device_token });
  expect(answer.status).toBe(200);
  const keys = new Map<number, Uint8Array>();
  for (const { key_id, box } of contentKeysAnswerSchema.parse(answer.json).keys)
    keys.set(key_id, openContentKey(credentials.e2e!.device_secret_key, "srv1", credentials.device_id, key_id, box));
  return keys;
}

/** The ids of the sealed events any of `keys` opens. */
export function openedIds(sealed: SealedEvent[], keys: Map<number, Uint8Array>): string[] {
  const ids: string[] = [];
  for (const envelope of sealed)
    for (const key of keys.values()) {
      try {
        openEvent(key, "srv1", envelope);
        ids.push(envelope.event_id);
        break;
      } catch {
        // not under this key
      }
    }
  return ids;
}
