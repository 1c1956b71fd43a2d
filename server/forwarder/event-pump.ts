// The event pump: pushes every stored event to the bridge as `session_event` {event, after} in id order, woken by
// each commit and each ack (never a poll timer), with up to `window` pushes in flight, only while the link is open.
// The cursor advances on the bridge's acks; each join resends strictly from what the bridge says it relayed.
import { MAX_FORGET_IDS } from "../../client/wire/frames.ts";
import { formatEventId, parseEventId, type AnyEvent } from "../../client/wire/index.ts";
import type { ServerContext } from "../context.ts";
import { CursorExpiredError, type EventStore } from "../events/event-store.ts";
import type { BridgeLink } from "./bridge-link.ts";
import type { ForwarderCursor } from "./cursor.ts";
/** The push for one event, or undefined when the link must not carry it (audience-link.ts): the link is refused. */
export type FormsOf = (event: AnyEvent) => object | undefined;

/** The most events a bridge keeps per server for replay (BRIDGE_REPLAY_EVENTS' upper bound). */
export const BRIDGE_REPLAY_WINDOW = 1_000_000;

export interface EventPumpOptions {
  /** Pushes in flight before waiting for acks. */
  window: number;
  /** An ack slower than this means the link is stuck: reconnect and resume from the bridge's word. */
  ackTimeoutMs: number;
}

/** What one join of the channel has pushed; a rejoin starts a new one, and acks of an old one are ignored. */
interface JoinProgress {
  sentThrough: number;
  inFlight: number;
}

export class EventPump {
  private progress: JoinProgress | undefined;
  private stopped = false;

  constructor(
    private readonly link: BridgeLink,
    private readonly events: EventStore,
    private readonly cursor: ForwarderCursor,
    private readonly log: ServerContext["log"],
    private readonly options: EventPumpOptions,
    /** Each event's forms for this bridge (audience-link.ts, event-forms.ts). */
    private readonly formsOf: FormsOf,
    /** The link may not carry an event (the bridge cannot route by audience): it is dropped. */
    private readonly refuse: () => void,
  ) {}

  /** A join succeeded: the bridge holds everything through `resumeAfter`; pushing resumes after it. */
  begin(resumeAfter: number): void {
    this.cursor.advance(resumeAfter);
    this.progress = { sentThrough: Math.max(resumeAfter, this.cursor.value), inFlight: 0 };
  }

  /** The join is over: its acks, if any still come, change nothing. */
  end(): void {
    this.progress = undefined;
  }

  stop(): void {
    this.stopped = true;
    this.progress = undefined;
  }

  /**
   * Pushes what the window allows. It runs inside phoenix callbacks (acks, the join reply) and commit listeners: a
   * throw there (the store closing under it, a SQLite error) would escape the ws message handler and take the server
   * process down, so it is logged and the next commit or ack retries.
   */
  pump(): void {
    try {
      this.pumpOnce();
    } catch (error) {
      this.log.error({ err: error }, "forwarder failed to read or push events; the next commit or ack retries");
    }
  }

  private pumpOnce(): void {
    const current = this.progress;
    const window = this.options.window;
    while (!this.stopped && current && current === this.progress && this.link.isOpen() && current.inFlight < window) {
      const events = this.readAfter(current, window - current.inFlight);
      if (events.length === 0) return;
      for (const event of events) if (!this.send(current, event)) return;
    }
  }

  /** Pushes one event; false when the link may not carry it and was refused. */
  private send(current: JoinProgress, event: AnyEvent): boolean {
    const forms = this.formsOf(event);
    if (forms === undefined) {
      this.progress = undefined;
      this.refuse();
      return false;
    }
    const id = parseEventId(event.event_id)!;
    if (event.type === "session_deleted" && event.session_id !== undefined) this.forget(event.session_id, id);
    // `after` chains the pushes of one join: the bridge sees a hole in what it got as a hole, never as a range.
    const after = formatEventId(current.sentThrough);
    current.sentThrough = id;
    current.inFlight++;
    const settled = (acked: boolean) => {
      if (current !== this.progress) return;
      current.inFlight--;
      if (!acked) this.log.error({ event_id: event.event_id }, "bridge refused an event; skipping it");
      // Acks come back in push order on one socket, so this id is the new contiguous high mark.
      this.cursor.advance(id);
      this.pump();
    };
    this.link
      .push("session_event", { ...forms, after }, this.options.ackTimeoutMs)
      .receive("ok", () => settled(true))
      .receive("error", () => settled(false))
      .receive("timeout", () => {
        if (current !== this.progress) return;
        this.log.warn(
          { event_id: event.event_id, timeout_ms: this.options.ackTimeoutMs },
          "bridge ack timed out; reconnecting",
        );
        this.link.restart();
      });
    return true;
  }

  /**
   * Before a session's `session_deleted` goes out: its earlier events, which the bridge may hold for replay (any of
   * the last BRIDGE_REPLAY_WINDOW ids), are named in `forget` pushes so it drops them. An encrypting device reads only
   * the sealed `session_deleted`, which the bridge cannot open: without this, the chat stayed in the replay until it
   * aged out. Sent again whenever the event is (a rejoin resends from the cursor), so a lost one is made good.
   */
  private forget(sessionId: string, deletedAt: number): void {
    const ids = this.events.sessionEventIds(sessionId, Math.max(0, deletedAt - BRIDGE_REPLAY_WINDOW), deletedAt);
    for (let from = 0; from < ids.length; from += MAX_FORGET_IDS) {
      const eventIds = ids.slice(from, from + MAX_FORGET_IDS).map(formatEventId);
      this.link
        .push("forget", { event_ids: eventIds }, this.options.ackTimeoutMs)
        .receive("error", (reply: unknown) =>
          this.log.warn({ session_id: sessionId, reply }, "bridge did not forget a deleted session's events"),
        );
    }
  }

  private readAfter(current: JoinProgress, limit: number): AnyEvent[] {
    try {
      return this.events.list({ sinceId: current.sentThrough, limit }).events;
    } catch (error) {
      if (!(error instanceof CursorExpiredError)) throw error;
      // The bridge was away longer than the store keeps events: apps see a gap and fill it over HTTP.
      this.log.warn(
        { from: current.sentThrough, to: this.events.oldestValidCursor },
        "forwarder cursor fell behind retention; skipping",
      );
      current.sentThrough = this.events.oldestValidCursor;
      return this.events.list({ sinceId: current.sentThrough, limit }).events;
    }
  }
}
