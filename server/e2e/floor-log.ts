// Where the replay guard keeps each device's newest sealed call time (replay-guard.ts FloorStore): an append-only
// file in DATA_DIR, one `<device id> <time>` line per device and flush, read whole at start (a device's largest time
// wins) and rewritten with one line per device once it passes a bound. A flush is one write() into the page cache:
// ~2 µs of CPU where an SQLite transaction (the devices row the floor used to live in) cost 15-35 µs, more than the
// cipher's own work on a sealed call, and at the relay's rates nearly every call needs its own flush. It is as durable
// as the database's commits (WAL with synchronous=NORMAL, server/db/database.ts): a write survives a crash of the
// process, and after a power loss the last few may be lost.
//
// Floors that an earlier version wrote to the devices table still count (`stored`, read once per device): a device's
// floor is the larger of the two.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE_MODE, restrictFile } from "../db/file-modes.ts";
import type { FloorStore } from "./replay-guard.ts";

export const FLOOR_LOG_FILE = "relay-floors.log";

/** Past this size the file is rewritten with one line per device (a compaction: rare, a rename makes it atomic). */
const COMPACT_AT_BYTES = 1 << 20;

const LINE = /^(\S{1,200}) (\d{1,16})$/;

export class FloorLog implements FloorStore {
  private readonly floors = new Map<string, number>();
  private readonly file: string;
  private fd: number;
  private bytes = 0;
  /** The size that triggers a compaction: the bound, or twice what the last one left when that is more. */
  private compactAt: number;

  constructor(
    dataDir: string,
    /** The floor an earlier version stored for a device (the devices table), 0 when none. */
    private readonly stored: (deviceId: string) => number,
    private readonly compactAtBytes = COMPACT_AT_BYTES,
  ) {
    this.compactAt = compactAtBytes;
    this.file = join(dataDir, FLOOR_LOG_FILE);
    const cutShort = existsSync(this.file) && !this.read();
    restrictFile(this.file);
    this.fd = openSync(this.file, "a", PRIVATE_FILE_MODE);
    // A last line cut short (a power loss mid-write) must not swallow the next one.
    if (cutShort) this.bytes += writeSync(this.fd, "\n");
  }

  load(deviceId: string): number {
    return Math.max(this.floors.get(deviceId) ?? 0, this.stored(deviceId));
  }

  /** One write() for every device's newest time: on disk (the page cache) when it returns. */
  saveAll(floors: ReadonlyMap<string, number>): void {
    let text = "";
    for (const [deviceId, madeAt] of floors) {
      text += `${deviceId} ${madeAt}\n`;
      if (madeAt > (this.floors.get(deviceId) ?? 0)) this.floors.set(deviceId, madeAt);
    }
    this.bytes += writeSync(this.fd, text);
    if (this.bytes > this.compactAt) this.compact();
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * Each device's largest time in the file; a line that is not `<id> <time>` (a write cut short) is skipped. False
   * when the file does not end a line.
   */
  private read(): boolean {
    const text = readFileSync(this.file, "utf8");
    this.bytes = Buffer.byteLength(text);
    for (const line of text.split("\n")) {
      const match = LINE.exec(line);
      if (!match) continue;
      const madeAt = Number(match[2]);
      if (madeAt > (this.floors.get(match[1]!) ?? 0)) this.floors.set(match[1]!, madeAt);
    }
    return text === "" || text.endsWith("\n");
  }

  /** Rewrites the file with one line per device: written and synced beside it, then renamed over it. */
  private compact(): void {
    const next = `${this.file}.next`;
    let text = "";
    for (const [deviceId, madeAt] of this.floors) text += `${deviceId} ${madeAt}\n`;
    const fd = openSync(next, "w", PRIVATE_FILE_MODE);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(next, this.file);
    closeSync(this.fd);
    this.fd = openSync(this.file, "a", PRIVATE_FILE_MODE);
    this.bytes = Buffer.byteLength(text);
    this.compactAt = Math.max(this.compactAtBytes, 2 * this.bytes);
  }
}
