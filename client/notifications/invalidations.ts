// Invalidation state (UI rule 3, docs/client.md "The rules, numbered"), kept per connection: one slot per session id, one for the session list,
// one for application actions. A slot stays pending until a consumer reloads authoritative state successfully.
// Each invalidation gets a local revision; a reload claims exactly that revision (at most one claim per revision),
// so a newer invalidation supersedes it and a late acknowledgment of the older one cannot clear the newer.
// This is runtime state only: nothing is stored, on the server or locally.
import { Signal, type ListenerErrorHandler, type Observable } from "../util/observable.ts";

export type InvalidationTarget =
  { kind: "session"; session_id: string } | { kind: "sessions_list" } | { kind: "application_actions" };

/** What asked for the reload: a notification revision (for logs and UIs). */
export interface InvalidationSource {
  scope: "application" | "session";
  session_id?: string;
  notification_id: string;
  revision: number | string;
}

export interface Invalidation {
  target: InvalidationTarget;
  /** Local, per target, increasing: which request for a reload this is. */
  revision: number;
  source: InvalidationSource;
  claimed: boolean;
}

export interface ReloadClaim {
  readonly target: InvalidationTarget;
  readonly revision: number;
  /** The reload succeeded: clears the slot if (and only if) it still holds this revision. */
  succeed(): boolean;
  /** The reload failed: the slot stays pending and may be claimed again. */
  fail(): void;
  /** The consumer is unavailable or inactive: same as fail, the slot stays pending. */
  decline(): void;
}

export function targetKey(target: InvalidationTarget): string {
  return target.kind === "session" ? `session:${target.session_id}` : target.kind;
}

export class Invalidations {
  private readonly slots = new Map<string, Invalidation>();
  private readonly counters = new Map<string, number>();
  private readonly signal: Signal<readonly Invalidation[]>;

  /** `onError`: where a throwing `pending` subscriber is reported (it never stops the others). */
  constructor(onError?: ListenerErrorHandler) {
    this.signal = new Signal<readonly Invalidation[]>([], onError);
  }

  /** Every pending invalidation; subscribe to react when one appears or clears. */
  get pending(): Observable<readonly Invalidation[]> {
    return this.signal;
  }

  get(target: InvalidationTarget): Invalidation | undefined {
    return this.slots.get(targetKey(target));
  }

  invalidate(target: InvalidationTarget, source: InvalidationSource): Invalidation {
    const key = targetKey(target);
    const revision = (this.counters.get(key) ?? 0) + 1;
    this.counters.set(key, revision);
    const invalidation: Invalidation = { target, revision, source, claimed: false };
    this.slots.set(key, invalidation);
    this.publish();
    return invalidation;
  }

  /** Claims the pending revision of `target` for one reload; undefined when nothing is pending or it is claimed. */
  claim(target: InvalidationTarget): ReloadClaim | undefined {
    const key = targetKey(target);
    const slot = this.slots.get(key);
    if (!slot || slot.claimed) return undefined;
    this.slots.set(key, { ...slot, claimed: true });
    const revision = slot.revision;
    let settled = false;
    const release = () => {
      if (settled) return;
      settled = true;
      const current = this.slots.get(key);
      if (current?.revision !== revision) return;
      this.slots.set(key, { ...current, claimed: false });
      this.publish();
    };
    return {
      target,
      revision,
      succeed: () => {
        if (settled) return false;
        settled = true;
        if (this.slots.get(key)?.revision !== revision) return false;
        this.slots.delete(key);
        this.publish();
        return true;
      },
      fail: release,
      decline: release,
    };
  }

  /** Claims, runs `reload`, then acknowledges or releases. Resolves false when there was nothing to do. */
  async reload(target: InvalidationTarget, reload: () => Promise<void>): Promise<boolean> {
    const claim = this.claim(target);
    if (!claim) return false;
    try {
      await reload();
    } catch (error) {
      claim.fail();
      throw error;
    }
    return claim.succeed();
  }

  private publish(): void {
    this.signal.set([...this.slots.values()]);
  }
}
