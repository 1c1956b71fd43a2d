// The replay guard's floors in a real data folder, as a restart sees them: calls accepted in one event-loop turn
// are written together, once (S40); a caller that awaits persisted() finds them on disk, so a new process refuses
// them as stale; closing writes what is still queued (S41). The floor log itself (S60): the largest time per device
// wins, a line cut short is skipped, an earlier version's floors in the devices table still count, and a compaction
// keeps every floor while bounding the file. And the device key cache forgets a revoked device (S42).
import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateKeyPair } from "../../client/wire/crypto/index.ts";
import { openDatabase, type Db } from "../../server/db/database.ts";
import { FLOOR_LOG_FILE, FloorLog } from "../../server/e2e/floor-log.ts";
import { ReplayGuard, type FloorStore } from "../../server/e2e/replay-guard.ts";
import { PairingService } from "../../server/pairing/pairing-service.ts";
import { tempDir } from "../support/temp-dir.ts";

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

const logs: FloorLog[] = [];
afterEach(() => {
  for (const log of logs.splice(0)) log.close();
});

/** The floor log of `dir` as a (re)started server opens it, over the database's stored floors. */
function floorLog(dir: string, pairing: PairingService, compactAtBytes?: number): FloorLog {
  const log = new FloorLog(dir, (deviceId) => pairing.storedRelayFloor(deviceId), compactAtBytes);
  logs.push(log);
  return log;
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
  const store = floorLog(dir, pairing);
  const writes: Array<Map<string, number>> = [];
  const counted: FloorStore = {
    load: (deviceId) => store.load(deviceId),
    saveAll: (floors) => {
      writes.push(new Map(floors));
      store.saveAll(floors);
    },
  };
  /** A guard as a new process has it: the database reopened, the floor log read again. */
  const restarted = () => new ReplayGuard(floorLog(dir, open(file)));
  return { dir, file, pairing, pair, writes, guard: new ReplayGuard(counted), restarted };
}

describe("replay guard floors", () => {
  it("S40: the calls of one turn are written once, newest time per device, before persisted() resolves; a restart refuses them", async () => {
    const { pair, writes, guard, restarted: restart } = setUp();
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
    const restarted = restart();
    expect(restarted.check(first, "a30", base + 30)).toBe("stale");
    expect(restarted.check(second, "b30", base + 130)).toBe("stale");
    expect(restarted.check(first, "a31", base + 31)).toBe("fresh");
    await restarted.persisted();
  });

  it("S41: flush() writes what is queued at once (closing), and a later turn writes again", async () => {
    const { pair, writes, guard, restarted } = setUp();
    const device = pair();
    const base = Date.now();
    expect(guard.check(device, "one", base)).toBe("fresh");
    guard.flush();
    expect(writes).toHaveLength(1);
    expect(restarted().check(device, "one", base)).toBe("stale");
    await guard.persisted();
    expect(writes).toHaveLength(1);
    expect(guard.check(device, "two", base + 1)).toBe("fresh");
    await guard.persisted();
    expect(writes).toHaveLength(2);
  });

  it("S60: the floor log keeps each device's largest time over restarts, skips a line cut short without losing the next, counts an earlier version's floor and is 0600", () => {
    const { dir, file, pairing, pair } = setUp();
    const [first, second] = [pair(), pair()];
    const log = floorLog(dir, pairing);
    log.saveAll(
      new Map([
        [first, 100],
        [second, 200],
      ]),
    );
    log.saveAll(new Map([[first, 150]]));
    const path = join(dir, FLOOR_LOG_FILE);
    expect(readFileSync(path, "utf8")).toBe(`${first} 100\n${second} 200\n${first} 150\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // A write cut short at the end, then a restart that writes again: the cut line is skipped, the next one counts.
    appendFileSync(path, `${second} `);
    floorLog(dir, pairing).saveAll(new Map([[second, 300]]));
    const reopened = floorLog(dir, open(file));
    expect(reopened.load(first)).toBe(150);
    expect(reopened.load(second)).toBe(300);
    // A floor the previous version kept in the device's row still counts where it is the larger.
    dbs[0]!.prepare("UPDATE devices SET relay_floor = 500 WHERE id = ?").run(first);
    expect(floorLog(dir, open(file)).load(first)).toBe(500);
    expect(floorLog(dir, open(file)).load(second)).toBe(300);
  });

  it("S60: past its bound the floor log is rewritten with one line per device, every floor kept", () => {
    const { dir, pairing, pair } = setUp();
    const devices = [pair(), pair(), pair()];
    const lineBytes = `${devices[0]} 1000000\n`.length;
    const log = floorLog(dir, pairing, 10 * lineBytes);
    for (let time = 1_000_000; time < 1_000_100; time++) log.saveAll(new Map([[devices[time % 3]!, time]]));
    const lines = readFileSync(join(dir, FLOOR_LOG_FILE), "utf8").split("\n").length - 1;
    expect(lines).toBeLessThanOrEqual(10 + 1);
    const reopened = floorLog(dir, pairing);
    expect(devices.map((device) => reopened.load(device))).toEqual([1_000_098, 1_000_099, 1_000_097]);
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
