// A set of in-process listeners, the one shape behind the server's wake-ups: commits (events/commit-signal.ts),
// session checkpoints (runner/checkpoints.ts) and pairing changes (pairing/pairing-service.ts).
export type Listener<T> = (value: T) => void;

export class ListenerSet<T> {
  private readonly listeners = new Set<Listener<T>>();

  /** How many listeners there are. */
  get size(): number {
    return this.listeners.size;
  }

  /** Adds a listener; the returned function removes it. */
  subscribe(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Calls every listener with `value`, in subscription order. Without `onError` a listener that throws stops the
   * call (the caller sees the error); with it, the error goes there and the other listeners still run.
   */
  notify(value: T, onError?: (error: unknown) => void): void {
    for (const listener of this.listeners) {
      if (!onError) {
        listener(value);
        continue;
      }
      try {
        listener(value);
      } catch (error) {
        onError(error);
      }
    }
  }
}
