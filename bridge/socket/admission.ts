// Who may open a socket. Each open socket holds ~16 KB (docs/bridge.md "Benchmark"), so without a bound a flood of
// connections from one address holds memory until the idle timeout. Two caps, checked before the upgrade so a
// refusal is a plain HTTP status (the phoenix client backs off and retries):
//  - all sockets together (503 when full);
//  - per address, the sockets that present no paired device's token (429): pairing apps, servers, and tokens that
//    name nobody. A paired device is never capped per address, since many phones share one NAT address.
export type Admission = { ok: true } | { ok: false; status: 429 | 503; problem: string };

export class SocketAdmission {
  private open = 0;
  /** address → open sockets from it without a paired device's token. */
  private readonly anonymous = new Map<string, number>();

  constructor(
    private readonly maxSockets: number,
    private readonly maxAnonymousPerAddress: number,
  ) {}

  /** Whether a socket from `address` may open now; `paired` when it presents a paired device's token. */
  check(address: string, paired: boolean): Admission {
    if (this.open >= this.maxSockets) return { ok: false, status: 503, problem: "the bridge is full" };
    if (!paired && (this.anonymous.get(address) ?? 0) >= this.maxAnonymousPerAddress) {
      return { ok: false, status: 429, problem: "too many unpaired sockets from this address" };
    }
    return { ok: true };
  }

  /** Counts a socket that opened; returns what `release` needs to uncount it. */
  opened(address: string, paired: boolean): () => void {
    this.open++;
    if (!paired) this.anonymous.set(address, (this.anonymous.get(address) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      if (paired) return;
      const left = (this.anonymous.get(address) ?? 1) - 1;
      if (left === 0) this.anonymous.delete(address);
      else this.anonymous.set(address, left);
    };
  }
}
