// Items collected during one event-loop turn and handled together at its end, in the order they came: the first item
// of a turn schedules the handler for the turn's check phase (setImmediate), after every callback of the poll phase
// that could add one. An item added while the handler runs (in the check phase) goes to the next turn's batch, so no
// item waits more than one turn. Used for the sealed relay (sealed-turns.ts): the cipher's work for a turn's calls
// runs back to back, where its per-call code stays warm, instead of between the routes' work.
export class TurnBatch<T> {
  private items: T[] = [];

  constructor(private readonly handle: (items: readonly T[]) => void) {}

  add(item: T): void {
    if (this.items.push(item) === 1) setImmediate(() => this.handleQueued());
  }

  private handleQueued(): void {
    const items = this.items;
    this.items = [];
    this.handle(items);
  }
}
