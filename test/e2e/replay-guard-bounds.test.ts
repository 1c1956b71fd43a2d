// The replay guard's bounds and the floor log's file, called directly (server/e2e/replay-guard.ts, floor-log.ts;
// docs/security.md "Relay"): past its ids a device's floor rises so a forgotten id stays refused, a device evicted from
// memory comes back at its persisted floor, an older call never lowers the floor written, a failed write reaches the
// caller; the floor log keeps the largest time, reads only whole lines, and compacts at its bound and then at twice what
// it left. replay-guard.test.ts holds the restarts; these pin each rule on its own, fast, for mutation testing.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FLOOR_LOG_FILE, FloorLog } from "../../server/e2e/floor-log.ts";
import { ReplayGuard, type FloorStore } from "../../server/e2e/replay-guard.ts";
import { tempDir } from "../support/temp-dir.ts";

/** A floor store in memory that keeps what was saved, as the floor log would. */
function memoryStore(): FloorStore & {
  saved: Map<string, number>;
  writes: Array<Map<string, number>>;
  closed: boolean;
} {
  const saved = new Map<string, number>();
  const writes: Array<Map<string, number>> = [];
  return {
    saved,
    writes,
    closed: false,
    load: (deviceId) => saved.get(deviceId) ?? 0,
    saveAll(floors) {
      writes.push(new Map(floors));
      for (const [id, at] of floors) saved.set(id, at);
    },
    close() {
      this.closed = true;
    },
  };
}

describe("the replay guard", () => {
  it("past its ids forgets the oldest and raises the floor to it: that id comes back stale, not fresh", () => {
    const guard = new ReplayGuard(memoryStore(), 2);
    expect(guard.check("dev", "a", 10)).toBe("fresh");
    expect(guard.check("dev", "b", 20)).toBe("fresh");
    expect(guard.check("dev", "b", 20)).toBe("replayed");
    expect(guard.check("dev", "c", 30)).toBe("fresh");
    expect(guard.check("dev", "a", 10)).toBe("stale");
    expect(guard.check("dev", "b", 20)).toBe("replayed");
    expect(guard.check("dev", "d", 11)).toBe("fresh");
  });

  it("past its ids, round after round, forgets them in the order they came, whatever their times", () => {
    const guard = new ReplayGuard(memoryStore(), 3);
    // Ten calls through three slots: each round's ids go oldest first, the times out of order within a round.
    const times = [10, 20, 30, 60, 40, 50, 35, 70, 80, 90];
    times.forEach((at, i) => expect(guard.check("dev", `call-${i}`, at)).toBe("fresh"));
    // The last three are held: replays. Every earlier one is forgotten and at or below the floor: stale.
    for (const i of [7, 8, 9]) expect(guard.check("dev", `call-${i}`, times[i]!)).toBe("replayed");
    for (const i of [0, 1, 2, 3, 4, 5, 6]) expect(guard.check("dev", `call-${i}`, times[i]!)).toBe("stale");
    // The floor is the newest time forgotten (60, call 3), not the last forgotten's (35): a new call at 55 is stale.
    expect(guard.check("dev", "late", 55)).toBe("stale");
    expect(guard.check("dev", "next", 61)).toBe("fresh");
  });

  it("never lowers the floor it writes for an older call", () => {
    const store = memoryStore();
    const guard = new ReplayGuard(store);
    guard.check("dev", "a", 20);
    guard.check("dev", "b", 10);
    guard.flush();
    expect(store.saved.get("dev")).toBe(20);
    expect(store.writes).toEqual([new Map([["dev", 20]])]);
    guard.flush();
    expect(store.writes).toHaveLength(1);
  });

  it("holds 1,000 devices: the oldest evicted comes back at its persisted floor", () => {
    const store = memoryStore();
    const guard = new ReplayGuard(store);
    expect(guard.check("dev_0", "a", 10)).toBe("fresh");
    guard.flush();
    for (let i = 1; i < 1000; i++) guard.check(`dev_${i}`, "x", 1);
    expect(guard.check("dev_0", "a", 10)).toBe("replayed"); // still held: 1,000 devices
    guard.check("dev_1000", "x", 1);
    expect(guard.check("dev_0", "a", 10)).toBe("stale"); // evicted, read back at its floor
  });

  it("starts a device at its stored floor", () => {
    const store = memoryStore();
    store.saved.set("dev", 50);
    const guard = new ReplayGuard(store);
    expect(guard.check("dev", "a", 50)).toBe("stale");
    expect(guard.check("dev", "b", 51)).toBe("fresh");
  });

  it("closing writes what is queued and closes the store; a store without close is fine", () => {
    const store = memoryStore();
    const guard = new ReplayGuard(store);
    guard.check("dev", "a", 7);
    guard.close();
    expect(store.saved.get("dev")).toBe(7);
    expect(store.closed).toBe(true);
    const bare = new ReplayGuard({ load: () => 0, saveAll: () => undefined });
    bare.check("dev", "a", 1);
    expect(() => bare.close()).not.toThrow();
  });

  it("hands a failed write to the callers through persisted(), and writes again after", async () => {
    let fail = true;
    const saved: number[] = [];
    const guard = new ReplayGuard({
      load: () => 0,
      saveAll: (floors) => {
        if (fail) throw new Error("disk full");
        saved.push(...floors.values());
      },
    });
    guard.check("dev", "a", 1);
    await expect(guard.persisted()).rejects.toThrow("disk full");
    fail = false;
    guard.check("dev", "b", 2);
    await expect(guard.persisted()).resolves.toBeUndefined();
    expect(saved).toEqual([2]);
  });
});

describe("the floor log", () => {
  const dirs: string[] = [];
  const logs: FloorLog[] = [];
  afterEach(() => {
    for (const log of logs.splice(0)) {
      try {
        log.close();
      } catch {
        // closed by the test
      }
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function open(text: string | undefined, compactAt?: number): { log: FloorLog; file: () => string } {
    const dir = tempDir();
    dirs.push(dir);
    if (text !== undefined) writeFileSync(join(dir, FLOOR_LOG_FILE), text);
    const log = new FloorLog(dir, () => 0, compactAt);
    logs.push(log);
    return { log, file: () => readFileSync(join(dir, FLOOR_LOG_FILE), "utf8") };
  }

  it("keeps each device's largest time, read or saved", () => {
    const { log } = open("dev 9\ndev 3\n");
    expect(log.load("dev")).toBe(9);
    log.saveAll(new Map([["dev", 5]]));
    expect(log.load("dev")).toBe(9);
    log.saveAll(new Map([["dev", 12]]));
    expect(log.load("dev")).toBe(12);
  });

  it("reads only whole `<id> <time>` lines", () => {
    const { log } = open("x y 5\nz 6 w\nok 7\n");
    expect([log.load("y"), log.load("z"), log.load("x"), log.load("ok")]).toEqual([0, 0, 0, 7]);
  });

  it("appends after a file that ends its line, and ends a line cut short first", () => {
    const whole = open("a 1\n");
    whole.log.saveAll(new Map([["b", 2]]));
    expect(whole.file()).toBe("a 1\nb 2\n");
    const cut = open("a 1\nb 2");
    cut.log.saveAll(new Map([["c", 3]]));
    expect(cut.file()).toBe("a 1\nb 2\nc 3\n");
  });

  it("compacts once past its bound (not at it), counting the newline a cut line was given", () => {
    // 15 bytes read, 1 added to end the cut line, 6 saved: 22 > 21 compacts; the same at a bound of 22 does not.
    const past = open("dev 5\ndev 3\nx 1", 21);
    past.log.saveAll(new Map([["new", 9]]));
    expect(past.file()).toBe("dev 5\nx 1\nnew 9\n");
    const at = open("dev 5\ndev 3\nx 1", 22);
    at.log.saveAll(new Map([["new", 9]]));
    expect(at.file()).toBe("dev 5\ndev 3\nx 1\nnew 9\n");
  });

  it("after a compaction waits for twice what it left before the next", () => {
    const { log, file } = open(undefined, 10);
    log.saveAll(
      new Map([
        ["a", 1],
        ["b", 2],
        ["c", 3],
      ]),
    ); // 12 bytes > 10: compacted to 12, next at 24
    expect(file()).toBe("a 1\nb 2\nc 3\n");
    log.saveAll(new Map([["a", 4]]));
    log.saveAll(new Map([["a", 5]]));
    log.saveAll(new Map([["a", 6]])); // 24 bytes: not past 24
    expect(file()).toBe("a 1\nb 2\nc 3\na 4\na 5\na 6\n");
    log.saveAll(new Map([["a", 7]]));
    expect(file()).toBe("a 7\nb 2\nc 3\n");
  });

  it("closed refuses further writes", () => {
    const { log } = open(undefined);
    log.close();
    expect(() => log.saveAll(new Map([["a", 1]]))).toThrow();
  });
});
