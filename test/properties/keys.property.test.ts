// Keys under generated cases (docs/security.md "Keys and their lifecycle", S5-S6): after any sequence of pairings,
// revocations, key fetches and published events on a real server (SQLite file, the HTTP routes, the sealing the
// forwarder uses), a revoked device, holding every key it ever fetched, opens nothing published after its revocation,
// and its token fetches nothing more (401); every live device, fetching now, opens every event published.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { generateKeyPair, openContentKey, openEvent, type EventEnvelope } from "../../client/wire/crypto/index.ts";
import { contentKeysAnswerSchema } from "../../client/wire/e2e.ts";
import { formatEventId } from "../../client/wire/event-id.ts";
import { EVERYONE } from "../../server/e2e/content-keys.ts";
import { itHolds } from "../support/properties.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

type Op =
  | { kind: "pair" }
  | { kind: "revoke"; pick: number }
  | { kind: "fetch"; pick: number }
  | { kind: "publish"; count: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: "pair" }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("revoke"), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("fetch"), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("publish"), count: fc.integer({ min: 1, max: 3 }) }) },
) as fc.Arbitrary<Op>;

interface Device {
  id: string;
  token: string;
  secret: string;
  /** Every content key it ever fetched, by id. */
  keys: Map<number, Uint8Array>;
  /** How many events were published when it was revoked; undefined while live. */
  revokedAfter: number | undefined;
}

// One server for every generated case (starting one per case would cost most of the time): each case looks only at
// its own devices and events, and what earlier cases left (devices, keys) is what a long-lived server has too.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ server: { server_id: "srv1" } });
});
afterAll(() => server.close());

async function pair(s: TestServer): Promise<Device> {
  const { publicKey, secretKey } = generateKeyPair();
  const pairing = s.runtime.ctx.pairing;
  const redeemed = pairing.redeem(pairing.createCode().code, "phone", publicKey);
  if (!redeemed.ok) throw new Error(`pairing failed: ${redeemed.reason}`);
  return {
    id: redeemed.device_id,
    token: redeemed.device_token,
    secret: secretKey,
    keys: new Map(),
    revokedAfter: undefined,
  };
}

/** GET /e2e/keys with the device's token; the keys it gets are kept (a stolen phone keeps them all). */
async function fetchKeys(s: TestServer, device: Device): Promise<number> {
  const answer = await s.request({ method: "GET", url: "/e2e/keys", token: device.token });
  if (answer.status !== 200) return answer.status;
  // A key already held is not opened again (each opening is an X25519 agreement: most of this test's time).
  for (const { key_id, box } of contentKeysAnswerSchema.parse(answer.json).keys)
    if (!device.keys.has(key_id))
      device.keys.set(key_id, openContentKey(device.secret, "srv1", device.id, key_id, box));
  return 200;
}

function opens(device: Device, envelope: EventEnvelope): boolean {
  const key = device.keys.get(envelope.key_id);
  if (!key) return false;
  try {
    openEvent(key, "srv1", envelope);
    return true;
  } catch {
    return false;
  }
}

describe("content keys after any sequence of pairings and revocations", () => {
  itHolds(
    "a revoked device opens nothing published after its revocation; a live one opens everything",
    fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
      const s = server;
      const devices: Device[] = [];
      const published: EventEnvelope[] = [];
      for (const step of ops) {
        const device = devices.length > 0 ? devices[("pick" in step ? step.pick : 0) % devices.length]! : undefined;
        if (step.kind === "pair") devices.push(await pair(s));
        else if (step.kind === "publish")
          for (let i = 0; i < step.count; i++) {
            const id = formatEventId(published.length + 1);
            published.push(
              s.runtime.ctx.e2e.sealEvent(EVERYONE, id, JSON.stringify({ event_id: id, type: "checkpoint" })),
            );
          }
        else if (step.kind === "fetch" && device)
          expect(await fetchKeys(s, device)).toBe(device.revokedAfter === undefined ? 200 : 401);
        else if (step.kind === "revoke" && device) {
          const answer = await s.request({ method: "DELETE", url: `/devices/${device.id}` });
          expect(answer.status).toBe(200);
          device.revokedAfter ??= published.length;
        }
      }
      for (const device of devices) {
        if (device.revokedAfter === undefined) {
          expect(await fetchKeys(s, device)).toBe(200);
          expect(published.filter((envelope) => !opens(device, envelope))).toEqual([]);
        } else {
          expect(await fetchKeys(s, device)).toBe(401);
          const later = published.slice(device.revokedAfter);
          expect(later.filter((envelope) => opens(device, envelope))).toEqual([]);
        }
      }
    }),
    { runs: 30, ms: 90_000 },
  );
});
