// Who hears which event. Listeners register for one type or for "*", optionally for one session, and get a
// disposer back. A listener for a known type only hears events that match that type's schema (so its argument
// type is honest); "*" hears every event that passed the common-field check. A throwing listener is reported,
// never allowed to stop delivery to the others or the stores.
import type { AnyEvent } from "../wire/events.ts";
import type { Disposer } from "../util/observable.ts";
import { conforms, isKnownType } from "./narrow.ts";

export interface ListenOptions {
  /** Only events of this session (events without session_id, such as application notifications, are skipped). */
  session_id?: string;
}

type Entry = { listener: (event: AnyEvent) => void; session_id: string | undefined };

export class ListenerRegistry {
  private readonly byType = new Map<string, Set<Entry>>();

  constructor(private readonly onListenerError: (error: unknown, event: AnyEvent) => void) {}

  add(type: string, listener: (event: AnyEvent) => void, options: ListenOptions = {}): Disposer {
    const entry: Entry = { listener, session_id: options.session_id };
    let entries = this.byType.get(type);
    if (!entries) this.byType.set(type, (entries = new Set()));
    entries.add(entry);
    return () => {
      entries.delete(entry);
    };
  }

  /**
   * `snapshotted`: the event is already in a snapshot of its session that the app loaded (loadMessages), so the
   * listeners scoped to that session skip it; listeners of every session still hear it, once.
   */
  dispatch(event: AnyEvent, snapshotted = false): void {
    const typed = this.byType.get(event.type);
    // Validate the full shape once per event, and only when someone listens for that type.
    if (typed && typed.size > 0 && (!isKnownType(event.type) || conforms(event))) this.run(typed, event, snapshotted);
    const all = this.byType.get("*");
    if (all && all.size > 0) this.run(all, event, snapshotted);
  }

  private run(entries: Set<Entry>, event: AnyEvent, snapshotted: boolean): void {
    for (const entry of [...entries]) {
      if (entry.session_id !== undefined && (snapshotted || entry.session_id !== event.session_id)) continue;
      try {
        entry.listener(event);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }
}
