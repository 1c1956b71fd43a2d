// Who may open a socket. Each open socket holds ~16 KB and a file descriptor (docs/benchmarks.md "Bridge: fan-out"), so without
// a bound a flood of connections holds memory until the idle timeout, and past the process's descriptor limit the
// kernel resets every new connection (/health included) instead of the bridge answering. Three caps, checked before
// the upgrade so a refusal is a plain HTTP status (the phoenix client backs off and retries):
//  - all sockets together (503 when full; the default is derived from the descriptor limit, config.ts);
//  - per paired device token (429): one device has a handful of apps open, never thousands. The newest socket is
//    refused, not the oldest closed: closing the oldest would let two tabs past the cap (or a stolen token) take turns
//    knocking each other off in a reconnect loop, and a refusal costs no upgrade;
//  - per address, the sockets that present no paired device's token (429): pairing apps, servers, and tokens that
//    name nobody. A paired device is never capped per address, since many phones share one NAT address.
export type Admission = { ok: true } | { ok: false; status: 429 | 503; problem: string };

export interface AdmissionLimits {
  maxSockets: number;
  maxSocketsPerDevice: number;
  maxAnonymousSocketsPerAddress: number;
}

/** Who a socket is, for counting: the paired device's token hash, or else only its address. */
export type SocketIdentity = { address: string; deviceTokenHash: string | undefined };

export class SocketAdmission {
  private open = 0;
  /** address → open sockets from it without a paired device's token. */
  private readonly anonymous = new Map<string, number>();
  /** paired device token hash → its open sockets. */
  private readonly perDevice = new Map<string, number>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** Whether a socket may open now. */
  check({ address, deviceTokenHash }: SocketIdentity): Admission {
    if (this.open >= this.limits.maxSockets) return { ok: false, status: 503, problem: "the bridge is full" };
    if (deviceTokenHash !== undefined) {
      if ((this.perDevice.get(deviceTokenHash) ?? 0) >= this.limits.maxSocketsPerDevice) {
        return { ok: false, status: 429, problem: "too many sockets for this device" };
      }
    } else if ((this.anonymous.get(address) ?? 0) >= this.limits.maxAnonymousSocketsPerAddress) {
      return { ok: false, status: 429, problem: "too many unpaired sockets from this address" };
    }
    return { ok: true };
  }

  /** Counts a socket that opened; returns what uncounts it (idempotent). */
  opened({ address, deviceTokenHash }: SocketIdentity): () => void {
    this.open++;
    const [counts, key] = deviceTokenHash === undefined ? [this.anonymous, address] : [this.perDevice, deviceTokenHash];
    counts.set(key, (counts.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (counts.get(key) ?? 1) - 1;
      if (left === 0) counts.delete(key);
      else counts.set(key, left);
    };
  }
}
