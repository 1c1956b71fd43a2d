// Tells each server when its devices were on the bridge, so the server's device list (`GET /devices`) can show
// when an app was last connected. A device is noted when its socket opens and when it closes, and every socket
// still open is noted once a minute; the notes go to the server's channel as `devices_seen` {device_ids}, batched
// into at most one push per server per second. A server that is not connected misses them; the next sweep after it
// joins covers every device still connected. Nothing here touches the fan-out path.
import { after, every, type Clock } from "../clock.ts";
import type { Connection } from "../socket/connection.ts";
import type { Registry } from "./registry.ts";
import type { ServersCapability } from "./shared-state.ts";

const FLUSH_MS = 1000;
const SWEEP_MS = 60_000;

export class DeviceSightings {
  /** server id → device ids noted since the last flush. */
  private pending = new Map<string, Set<string>>();
  /** Cancels the pending flush, when one is due. */
  private cancelFlush: (() => void) | undefined;
  private readonly stopped = new AbortController();

  /**
   * The flush and the minute sweep run on the bridge's clock. Reports go through the shared state: to the link here,
   * or (a cluster) with the devices connected on every node, to the link wherever it is.
   */
  constructor(
    private readonly servers: Pick<ServersCapability, "reportSightings">,
    private readonly registry: Registry,
    private readonly clock: Clock,
  ) {
    every(clock, SWEEP_MS, () => this.sweep(), this.stopped.signal);
  }

  /** Notes the device behind a socket's token; sockets without a token or with an unknown one are ignored. */
  note(connection: Connection): void {
    this.noteToken(connection.tokenHash);
  }

  /** Notes every device with an open socket. */
  sweep(): void {
    for (const tokenHash of this.registry.connectedTokens()) this.noteToken(tokenHash);
  }

  /** Sends what was noted, one `devices_seen` per connected server. */
  flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = undefined;
    const pending = this.pending;
    this.pending = new Map();
    for (const [serverId, deviceIds] of pending) {
      const state = this.registry.get(serverId);
      if (state) this.servers.reportSightings(state, [...deviceIds], this.connectedDevices(serverId));
    }
  }

  stop(): void {
    this.stopped.abort();
    this.cancelFlush?.();
  }

  /** The server's devices with a socket open now (a closing socket is untracked before it is noted). */
  private connectedDevices(serverId: string): string[] {
    const ids = new Set<string>();
    for (const tokenHash of this.registry.connectedTokens()) {
      const deviceId = this.registry.deviceOf(serverId, tokenHash);
      if (deviceId !== undefined) ids.add(deviceId);
    }
    return [...ids];
  }

  private noteToken(tokenHash: string | undefined): void {
    if (tokenHash === undefined || this.stopped.signal.aborted) return;
    // Each server granting the hash hears of it (normally one: a hash is a secret token's).
    for (const [serverId, deviceId] of this.registry.grantsOf(tokenHash)) {
      let ids = this.pending.get(serverId);
      if (!ids) this.pending.set(serverId, (ids = new Set()));
      ids.add(deviceId);
      this.cancelFlush ??= after(this.clock, FLUSH_MS, () => this.flush());
    }
  }
}
