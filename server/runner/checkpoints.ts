// docs/events.md "Event types and checkpoints": `session_checkpoint` is internal. It carries the live session just persisted by a
// request and is consumed in process by the request coordinator (which feeds the next phase from it); it is
// never stored, so neither /events nor the bridge can carry it (the event store refuses it outright).
import type { Session } from "../../client/wire/index.ts";
import { INTERNAL_CHECKPOINT } from "../events/event-store.ts";
import { ListenerSet } from "../listeners.ts";

export interface SessionCheckpoint {
  type: typeof INTERNAL_CHECKPOINT;
  session_id: string;
  request_id: string;
  /** The version just saved, with the messages the next provider call is built from. */
  session: Session;
}

export class CheckpointSignal extends ListenerSet<SessionCheckpoint> {
  /** Called only after the save committed, so a listener never sees a session that could still roll back. */
  emit(sessionId: string, requestId: string, session: Session): void {
    this.notify({ type: INTERNAL_CHECKPOINT, session_id: sessionId, request_id: requestId, session });
  }
}
