// The in-process wake-up: waiters (long-polls, the forwarder) learn of a commit at once instead of polling.
export type CommitListener = (lastEventId: number) => void;

export class CommitSignal {
  private readonly listeners = new Set<CommitListener>();

  subscribe(listener: CommitListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(lastEventId: number): void {
    for (const listener of this.listeners) {
      try {
        listener(lastEventId);
      } catch {
        // A waiter's failure is its own; it must not stop the others from waking.
      }
    }
  }

  /**
   * Resolves once an event newer than `afterId` has committed and `matches` accepts the wake-up (true),
   * or when `timeoutMs` passes or `signal` aborts (false).
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
      const timer = setTimeout(() => finish(false), timeoutMs);
      const unsubscribe = this.subscribe((lastId) => {
        if (lastId > afterId) finish(true);
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
