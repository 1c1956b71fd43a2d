// A value that changes over time and tells its subscribers. Small on purpose: apps bind it to React state,
// a Svelte store or a DOM node in one line.
export type Disposer = () => void;

export interface Observable<T> {
  get(): T;
  /** Calls `listener` on every change (not with the current value); returns the unsubscribe function. */
  subscribe(listener: (value: T) => void): Disposer;
}

export class Signal<T> implements Observable<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private value: T) {}

  get(): T {
    return this.value;
  }

  set(value: T): void {
    this.value = value;
    // Copy first: a listener may unsubscribe itself while we iterate.
    for (const listener of [...this.listeners]) listener(value);
  }

  subscribe(listener: (value: T) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A plain multi-listener channel for things that happen (not state). */
export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  emit(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  on(listener: (value: T) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
