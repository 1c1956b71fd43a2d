// The replay guard's floors on a real SQLite file, as a restart sees them: calls accepted in one event-loop turn
// are written together, once (S40); a caller that awaits persisted() finds them on disk, so a new process refuses
// them as stale; closing writes what is still queued (S41). And the device key cache forgets a revoked device (S42).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateKeyPair } from "../../client/wire/crypto/index.ts";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { ReplayGuard, type FloorStore } from "../../server/e2e/replay-guard.ts";
import { PairingService } from "../../server/pairing/pairing-service.ts";
import { tempDir } from "../support/server.ts";

const dirs: string[] = [];
const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(file: string): PairingService {
  const db = openDatabase(file);
  dbs.push(db);
  return new PairingService(db, () => Date.now());
}

function setUp() {
  const dir = tempDir();
  dirs.push(dir);
  const file = join(dir, "server.sqlite");
  const pairing = open(file);
  const pair = () => {
    const redeemed = pairing.redeem(pairing.createCode().code, "phone", generateKeyPair().publicKey);
    if (!redeemed.ok) throw new Error("pairing failed");
    return redeemed.device_id;
  };
  const writes: Array<Map<string, number>> = [];
  const counted: FloorStore = {
    load: (deviceId) => pairing.relayFloors.load(deviceId),
    saveAll: (floors) => {
      writes.push(new Map(floors));
      pairing.relayFloors.saveAll(floors);
    },
  };
  return { file, pairing, pair, writes, guard: new ReplayGuard(counted) };
}

describe("replay guard floors", () => {
  it("S40: the calls of one turn are written once, newest time per device, before persisted() resolves; a restart refuses them", async () => {
    const { file, pair, writes, guard } = setUp();
    const [first, second] = [pair(), pair()];
    const base = Date.now();
    for (let index = 1; index <= 30; index++) {
      expect(guard.check(first, `a${index}`, base + index)).toBe("fresh");
      expect(guard.check(second, `b${index}`, base + 100 + index)).toBe("fresh");
    }
    expect(guard.check(first, "a30", base + 30)).toBe("replayed");
    expect(writes).toHaveLength(0);
    await guard.persisted();
    expect(writes).toEqual([
      new Map([
        [first, base + 30],
        [second, base + 130],
      ]),
    ]);
    const restarted = new ReplayGuard(open(file).relayFloors);
    expect(restarted.check(first, "a30", base + 30)).toBe("stale");
    expect(restarted.check(second, "b30", base + 130)).toBe("stale");
    expect(restarted.check(first, "a31", base + 31)).toBe("fresh");
    await restarted.persisted();
  });

  it("S41: flush() writes what is queued at once (closing), and a later turn writes again", async () => {
    const { file, pair, writes, guard } = setUp();
    const device = pair();
    const base = Date.now();
    expect(guard.check(device, "one", base)).toBe("fresh");
    guard.flush();
    expect(writes).toHaveLength(1);
    expect(new ReplayGuard(open(file).relayFloors).check(device, "one", base)).toBe("stale");
    await guard.persisted();
    expect(writes).toHaveLength(1);
    expect(guard.check(device, "two", base + 1)).toBe("fresh");
    await guard.persisted();
    expect(writes).toHaveLength(2);
  });

  it("S42: a device's public key is read once and forgotten when the device is revoked", () => {
    const { pairing, pair } = setUp();
    const device = pair();
    const key = pairing.publicKeyOf(device);
    expect(key).toBeDefined();
    expect(pairing.publicKeyOf(device)).toBe(key);
    pairing.revoke(device);
    expect(pairing.publicKeyOf(device)).toBeUndefined();
  });
});
