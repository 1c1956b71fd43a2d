// A value that changes over time and tells its subscribers. Small on purpose: apps bind it to React state,
// a Svelte store or a DOM node in one line.
//
// Subscribers are app code, called from inside the library (often from a phoenix or WebSocket callback). One that
// throws is isolated: the error goes to `onError` (the client reports it through onProblem) and the others, and
// the library, carry on. Without a handler it is logged with console.error.
export type Disposer = () => void;

/** Where an exception thrown by a subscriber goes. */
export type ListenerErrorHandler = (error: unknown) => void;

const logListenerError: ListenerErrorHandler = (error) => console.error("chat client: a subscriber threw", error);

function callEach<T>(listeners: ReadonlySet<(value: T) => void>, value: T, onError: ListenerErrorHandler): void {
  // Copy first: a listener may unsubscribe itself while we iterate.
  for (const listener of [...listeners]) {
    try {
      listener(value);
    } catch (error) {
      try {
        onError(error);
      } catch (reportError) {
        logListenerError(reportError);
      }
    }
  }
}

export interface Observable<T> {
  get(): T;
  /** Calls `listener` on every change (not with the current value); returns the unsubscribe function. */
  subscribe(listener: (value: T) => void): Disposer;
}

export class Signal<T> implements Observable<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(
    private value: T,
    private readonly onError: ListenerErrorHandler = logListenerError,
  ) {}

  get(): T {
    return this.value;
  }

  set(value: T): void {
    this.value = value;
    callEach(this.listeners, value, this.onError);
  }

  subscribe(listener: (value: T) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A plain multi-listener channel for things that happen (not state). */
export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private readonly onError: ListenerErrorHandler = logListenerError) {}

  emit(value: T): void {
    callEach(this.listeners, value, this.onError);
  }

  on(listener: (value: T) => void): Disposer {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
