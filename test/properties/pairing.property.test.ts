// Pairing under generated cases (docs/bridge.md "Pairing and devices", docs/security.md):
// - the server: codes made, time passing and redemptions through two connections to one SQLite file in any order; a
//   code pairs at most one device, an expired or used code never pairs, and every other redemption does;
// - the bridge, over loopback: batches of pairing joins sent at once from several addresses with valid, expired,
//   reused and guessed codes, to a server that says yes to everything it is asked (so the bridge's own rules are
//   what is checked): a code reaches the server and pairs at most once, expired and wrong codes never pair, no
//   address has more wrong or expired codes looked at in a window than its limit, and while an attacker floods from
//   a few addresses a fresh address with a valid code still pairs. (A valid code another attempt took at the same
//   moment is refused and counted too, but it was no guess: attempts already past the limit's check when the count
//   filled up are let finish, so only guesses are held to the limit.)
import fc from "fast-check";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect } from "vitest";
import { sha256Hex } from "../../client/wire/crypto/token-hash.ts";
import { openDatabase } from "../../server/db/database.ts";
import { PairingService } from "../../server/pairing/pairing-service.ts";
import { fakeServer, runCleanups, testBridge, until, type TestBridge, answerPairings } from "../bridge/helpers.ts";
import { holdBeforeTaking, pairFrom } from "../bridge/code-race.ts";
import { itHolds } from "../support/properties.ts";
import { tempDir } from "../support/server.ts";

afterEach(runCleanups);

type ServerOp =
  | { kind: "create"; via: 0 | 1 }
  | { kind: "advance"; ms: number }
  | { kind: "redeem"; via: 0 | 1; code: number }
  | { kind: "guess"; via: 0 | 1 };

const TTL = 60_000;
const serverOp: fc.Arbitrary<ServerOp> = fc.oneof(
  fc.record({ kind: fc.constant("create"), via: fc.constantFrom(0, 1) }),
  fc.record({ kind: fc.constant("advance"), ms: fc.integer({ min: 1, max: TTL }) }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("redeem"), via: fc.constantFrom(0, 1), code: fc.nat() }) },
  fc.record({ kind: fc.constant("guess"), via: fc.constantFrom(0, 1) }),
) as fc.Arbitrary<ServerOp>;

describe("pairing on the server, any order of codes, time and redemptions", () => {
  itHolds(
    "pairs a code at most once, never an expired or used one, and always an unused unexpired one",
    fc.property(fc.array(serverOp, { maxLength: 40 }), (ops) => {
      const dir = tempDir("pairing-prop-");
      let now = 1_800_000_000_000;
      // Two connections to one file, as two server processes (or a restart) would hold.
      const dbs = [openDatabase(join(dir, "a.db")), openDatabase(join(dir, "a.db"))];
      const services = dbs.map((db) => new PairingService(db, () => now, TTL));
      const codes: Array<{ code: string; expiresAt: number; used: boolean }> = [];
      try {
        for (const step of ops) {
          if (step.kind === "create") codes.push({ ...services[step.via]!.createCode(), used: false });
          else if (step.kind === "advance") now += step.ms;
          else if (step.kind === "guess") {
            expect(services[step.via]!.redeem("ZZZZZ-ZZZZZ", "guess")).toEqual({
              ok: false,
              reason: "invalid_code",
            });
          } else if (codes.length > 0) {
            const code = codes[step.code % codes.length]!;
            const result = services[step.via]!.redeem(code.code, "phone");
            const expected = code.used ? "invalid_code" : code.expiresAt <= now ? "expired" : "ok";
            expect(result.ok ? "ok" : result.reason).toBe(expected);
            if (result.ok) code.used = true;
          }
        }
        const paired = codes.filter((code) => code.used).length;
        expect(services[0]!.listDevices()).toHaveLength(paired);
        // Grants list a code exactly while it is unused and unexpired.
        const open = codes.filter((code) => !code.used && code.expiresAt > now).length;
        expect(services[1]!.grants().codes).toHaveLength(open);
      } finally {
        for (const db of dbs) db.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    { runs: 40, ms: 60_000 },
  );
});

const LIMITS = { pairingFailuresPerAddress: 3, pairingFailuresOverall: 5, pairingFailingAddresses: 5 };
/** Valid codes 0-2, an expired one (3), a guess (4). The attacker uses at most 4 addresses: under the bound of 5. */
const CODES = ["AAAAABBBBB", "CCCCCDDDDD", "EEEEEFFFFF", "GGGGGHHHHH", "ZZZZZZZZZZ", "JJJJJKKKKK"];
const FRESH_CODE = CODES[5]!;
const attempt = fc.record({ address: fc.integer({ min: 2, max: 5 }), code: fc.integer({ min: 0, max: 4 }) });
const batch = fc.record({
  attempts: fc.array(attempt, { minLength: 1, maxLength: 6 }),
  /** The order in which the attempts held between finding their code and taking it go on. */
  order: fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
});

/** Sends a batch at once, lets the held attempts go on one by one in `order`, and returns every answer. */
async function sendAtOnce(
  bridge: TestBridge,
  held: Array<() => void>,
  attempts: Array<{ address: number; code: number }>,
  order: number[],
): Promise<string[]> {
  let answered = 0;
  const answers = Promise.all(
    attempts.map(({ address, code }) =>
      pairFrom(bridge.url, `127.0.0.${address}`, CODES[code]!).finally(() => answered++),
    ),
  );
  await until(() => answered + held.length === attempts.length, "every attempt answered or held");
  for (const pick of order) {
    if (held.length === 0) break;
    held.splice(pick % held.length, 1)[0]!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return answers;
}

describe("pairing through the bridge, joins sent at once", () => {
  itHolds(
    "pairs each code once, never an expired or guessed one, holds each address to its limit, and lets a fresh address pair",
    fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 4 }), async (batches) => {
      const bridge = await testBridge(LIMITS);
      const now = bridge.clock.now();
      const grant = (code: string, expiresAt: number) => ({ code_hash: sha256Hex(code), expires_at: expiresAt });
      const server = await fakeServer(bridge.url, {
        codes: [
          ...CODES.slice(0, 3).map((code) => grant(code, now + 600_000)),
          grant(CODES[3]!, now - 1),
          grant(FRESH_CODE, now + 600_000),
        ],
      });
      // A server that pairs whatever it is asked: only the bridge stands between a code and a second device.
      let made = 0;
      answerPairings(server, () => `dev_${++made}`);
      const held = holdBeforeTaking(bridge);
      const okByCode = new Map<number, number>();
      /** Wrong or expired codes looked at (not refused unseen as rate_limited), per address. */
      const guessesByAddress = new Map<number, number>();
      for (const { attempts, order } of batches) {
        const answers = await sendAtOnce(bridge, held, attempts, order);
        attempts.forEach(({ address, code }, i) => {
          const answer = answers[i]!;
          if (answer === "ok") okByCode.set(code, (okByCode.get(code) ?? 0) + 1);
          else if (answer !== "rate_limited" && code >= 3)
            guessesByAddress.set(address, (guessesByAddress.get(address) ?? 0) + 1);
          expect(["ok", "invalid_code", "expired", "rate_limited"]).toContain(answer);
        });
      }
      for (const [code, count] of okByCode) {
        expect(code).toBeLessThan(3);
        expect(count).toBe(1);
      }
      expect(server.pairRequests.length).toBe([...okByCode.values()].length);
      for (const count of guessesByAddress.values())
        expect(count).toBeLessThanOrEqual(LIMITS.pairingFailuresPerAddress);
      // However the attacker spent the budget, a fresh address with a valid code pairs.
      expect(await sendAtOnce(bridge, held, [{ address: 9, code: 5 }], [0])).toEqual(["ok"]);
      await runCleanups();
    }),
    { runs: 15, ms: 60_000 },
  );
});
