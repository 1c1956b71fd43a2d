// The in-process wake-up: waiters (long-polls, the forwarder) learn of a commit at once instead of polling.
import { ListenerSet } from "../listeners.ts";

export class CommitSignal extends ListenerSet<number> {
  /** Wakes every waiter with the last committed id; a waiter's failure is its own and never stops the others. */
  override notify(lastEventId: number): void {
    super.notify(lastEventId, () => undefined);
  }

  /**
   * Resolves once an event newer than `afterId` has committed and `matches` accepts the wake-up (true),
   * or when `timeoutMs` passes or `signal` aborts (false). With `timeoutMs` Infinity it keeps no timer: the
   * caller times the wait on its injected clock and aborts `signal` (the GET /events long-poll does).
   */
  waitBeyond(afterId: number, latest: () => number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (latest() > afterId) return Promise.resolve(true);
    if (timeoutMs <= 0 || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (woken: boolean) => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener("abort", onAbort);
        resolve(woken);
      };
      const onAbort = () => finish(false);
      const timer = Number.isFinite(timeoutMs) ? setTimeout(() => finish(false), timeoutMs) : undefined;
      const unsubscribe = this.subscribe((lastId) => {
        if (lastId > afterId) finish(true);
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
