// Refuses a sealed relayed call that was already run: a bridge replaying a captured request. Each sealed call
// carries a fresh random id and the time the device made it, by the device's clock, so nothing depends on the
// device's and the server's clocks agreeing. Per device the guard remembers the ids of its newest calls; past that
// bound the oldest id goes and the device's floor rises to its time: a call at or below the floor is refused as
// stale, so a forgotten id cannot come back. The newest time each device used is written down (floor-log.ts), and a
// restart starts from it as the floor, so a call captured before a restart is refused after it too.
//
// That write is grouped: a fresh call queues its device's newest time, and one write records every queued device
// once per event-loop turn (setImmediate). A caller awaits `persisted()` before it runs the call, so no call takes
// effect before its floor is on disk: a crash cannot let a run call be replayed after a restart. (The calls of a
// relay rarely share a turn, so the write's own cost counts per call: an SQLite transaction was 15-35 µs, more than
// the cipher's work on the call; the floor log's write() is ~2 µs.)
export const IDS_PER_DEVICE = 2000;
/** Devices whose ids are held at once; a device evicted here keeps its persisted floor. */
const DEVICES_HELD = 1000;

export type ReplayVerdict = "fresh" | "replayed" | "stale";

export interface FloorStore {
  /** The newest call time stored for a device (0 when none). */
  load(deviceId: string): number;
  /** Writes every device's newest time at once (one write: floor-log.ts). */
  saveAll(floors: ReadonlyMap<string, number>): void;
  close?(): void;
}

interface DeviceCalls {
  /** The ids held: a call with one of them is a replay. */
  ids: Set<string>;
  /**
   * The held ids and their times in arrival order, a ring: once full, `next` is the oldest, the one to forget. Not a
   * Map iterated for its oldest entry: V8 leaves a hole per deleted entry at the front until it rehashes, and finding
   * the oldest walks them, ~1 µs a call at 2,000 ids against ~0.2 (docs/benchmarks.md "Sealed relay").
   */
  order: string[];
  times: number[];
  next: number;
  /** Calls at or below this time are refused. */
  floor: number;
  /** The newest time accepted (what is persisted). */
  newest: number;
}

export class ReplayGuard {
  private readonly devices = new Map<string, DeviceCalls>();
  /** Newest times accepted since the last write, per device; written by the pending flush. */
  private unsaved = new Map<string, number>();
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly floors: FloorStore,
    private readonly idsPerDevice = IDS_PER_DEVICE,
  ) {}

  check(deviceId: string, id: string, madeAt: number): ReplayVerdict {
    const calls = this.callsOf(deviceId);
    if (calls.ids.has(id)) return "replayed";
    if (madeAt <= calls.floor) return "stale";
    this.hold(calls, id, madeAt);
    if (madeAt > calls.newest) {
      calls.newest = madeAt;
      this.unsaved.set(deviceId, madeAt);
      this.flushing ??= this.flushSoon();
    }
    return "fresh";
  }

  /** Resolves once every time accepted so far is written (rejects when the write failed): run a call only then. */
  persisted(): Promise<void> {
    return this.flushing ?? Promise.resolve();
  }

  /** Writes what is queued and lets the store go (the server closing). */
  close(): void {
    this.flush();
    this.floors.close?.();
  }

  /** Writes what is queued now. */
  flush(): void {
    if (this.unsaved.size === 0) return;
    const queued = this.unsaved;
    this.unsaved = new Map();
    this.floors.saveAll(queued);
  }

  private flushSoon(): Promise<void> {
    const flushing = new Promise<void>((resolve, reject) => setImmediate(() => this.flushQueued(resolve, reject)));
    // A failed write reaches each caller through persisted(); never an unhandled rejection that ends the process.
    flushing.catch(() => undefined);
    return flushing;
  }

  private flushQueued(resolve: () => void, reject: (error: unknown) => void): void {
    this.flushing = undefined;
    try {
      this.flush();
      resolve();
    } catch (error) {
      reject(error);
    }
  }

  /** Holds a fresh call's id; past the bound the oldest id goes and the floor rises to its time. */
  private hold(calls: DeviceCalls, id: string, madeAt: number): void {
    const slot = calls.next;
    if (calls.order.length < this.idsPerDevice) {
      calls.order.push(id);
      calls.times.push(madeAt);
    } else {
      calls.ids.delete(calls.order[slot]!);
      calls.floor = Math.max(calls.floor, calls.times[slot]!);
      calls.order[slot] = id;
      calls.times[slot] = madeAt;
    }
    calls.next = (slot + 1) % this.idsPerDevice;
    calls.ids.add(id);
  }

  private callsOf(deviceId: string): DeviceCalls {
    let calls = this.devices.get(deviceId);
    if (calls) return calls;
    const stored = this.floors.load(deviceId);
    calls = { ids: new Set(), order: [], times: [], next: 0, floor: stored, newest: stored };
    if (this.devices.size >= DEVICES_HELD) this.devices.delete(this.devices.keys().next().value!);
    this.devices.set(deviceId, calls);
    return calls;
  }
}
