// Refuses a sealed relayed call that was already run: a bridge replaying a captured request. Each sealed call
// carries a fresh random id and the time the device made it, by the device's clock, so nothing depends on the
// device's and the server's clocks agreeing. Per device the guard remembers the ids of its newest calls; past that
// bound the oldest id goes and the device's floor rises to its time: a call at or below the floor is refused as
// stale, so a forgotten id cannot come back. The newest time each device used is written to its row, and a restart
// starts from it as the floor, so a call captured before a restart is refused after it too.
export const IDS_PER_DEVICE = 2000;
/** Devices whose ids are held at once; a device evicted here keeps its persisted floor. */
const DEVICES_HELD = 1000;

export type ReplayVerdict = "fresh" | "replayed" | "stale";

export interface FloorStore {
  /** The newest call time stored for a device (0 when none). */
  load(deviceId: string): number;
  save(deviceId: string, madeAt: number): void;
}

interface DeviceCalls {
  /** call id → its time; Map keeps arrival order, so the oldest come first. */
  ids: Map<string, number>;
  /** Calls at or below this time are refused. */
  floor: number;
  /** The newest time accepted (what is persisted). */
  newest: number;
}

export class ReplayGuard {
  private readonly devices = new Map<string, DeviceCalls>();

  constructor(
    private readonly floors: FloorStore,
    private readonly idsPerDevice = IDS_PER_DEVICE,
  ) {}

  check(deviceId: string, id: string, madeAt: number): ReplayVerdict {
    const calls = this.callsOf(deviceId);
    if (calls.ids.has(id)) return "replayed";
    if (madeAt <= calls.floor) return "stale";
    if (calls.ids.size >= this.idsPerDevice) {
      const [oldestId, oldestAt] = calls.ids.entries().next().value!;
      calls.ids.delete(oldestId);
      calls.floor = Math.max(calls.floor, oldestAt);
    }
    calls.ids.set(id, madeAt);
    if (madeAt > calls.newest) {
      calls.newest = madeAt;
      this.floors.save(deviceId, madeAt);
    }
    return "fresh";
  }

  private callsOf(deviceId: string): DeviceCalls {
    let calls = this.devices.get(deviceId);
    if (calls) return calls;
    const stored = this.floors.load(deviceId);
    calls = { ids: new Map(), floor: stored, newest: stored };
    if (this.devices.size >= DEVICES_HELD) this.devices.delete(this.devices.keys().next().value!);
    this.devices.set(deviceId, calls);
    return calls;
  }
}
