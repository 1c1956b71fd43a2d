// Reading the event log over HTTP (GET /events): bootstrap at the head, catch up from a cursor page by page,
// or long-poll. Each page's events are checked one by one (a malformed one is reported and skipped, never fatal)
// and handed on in order, then the cursor moves to next_since_id. The epoch pins the store: a reset store or a
// pruned cursor answers 410, which surfaces as CursorExpiredResponseError.
import { anyEventSchema, type AnyEvent } from "../wire/events.ts";
import type { EventsPage } from "../wire/http.ts";
import { eventsRoute } from "../wire/routes/events.ts";
import { callRoute } from "../api/call-route.ts";
import { ProtocolError } from "./errors.ts";
import type { Requester } from "./http.ts";

export interface ReaderSink {
  cursor(): string | undefined;
  accept(event: AnyEvent): void;
  advanceTo(nextSinceId: string): void;
  malformed(raw: unknown): void;
}

export class EventReader {
  private epoch: string | undefined;

  constructor(
    private readonly http: Requester,
    private readonly sink: ReaderSink,
  ) {}

  /** Reads until the log's head (has_more false). Without a cursor, bootstraps at the head first. */
  async catchUp(signal?: AbortSignal): Promise<void> {
    if (this.sink.cursor() === undefined) await this.bootstrap(signal);
    let page: EventsPage;
    do {
      const before = this.sink.cursor();
      page = await this.read(0, signal);
      // A page that says "more" but does not move the cursor would be asked for again forever: a server bug, which
      // fails this catch-up (and backs off) instead of spinning.
      if (page.has_more === true && !signal?.aborted && this.sink.cursor() === before) {
        throw new ProtocolError(`GET /events answered has_more without moving past ${before ?? "the start"}`);
      }
    } while (page.has_more === true && !signal?.aborted);
  }

  /** One long-poll: answers as soon as an event commits after the cursor, or empty after `waitMs`. */
  async poll(waitMs: number, signal?: AbortSignal): Promise<EventsPage> {
    if (this.sink.cursor() === undefined) await this.bootstrap(signal);
    return this.read(waitMs, signal);
  }

  /** The store's identity as this reader knows it (from its first answer); undefined before. */
  get currentEpoch(): string | undefined {
    return this.epoch;
  }

  /**
   * A cursor saved by an earlier run is resumed with the store it belongs to: the first read sends that epoch, so a
   * replaced store answers 410 instead of serving another log's ids.
   */
  resumeEpoch(epoch: string): void {
    this.epoch = epoch;
  }

  /** A new store or a pruned cursor: forget the epoch too, so the next bootstrap adopts the new one. */
  forgetEpoch(): void {
    this.epoch = undefined;
  }

  private async bootstrap(signal?: AbortSignal): Promise<void> {
    const page = await callRoute(this.http, eventsRoute, {}, { signal });
    this.epoch = page.epoch;
    if (signal?.aborted) return;
    this.sink.advanceTo(page.latest_event_id ?? page.next_since_id);
  }

  private async read(waitMs: number, signal?: AbortSignal): Promise<EventsPage> {
    const since = this.sink.cursor();
    const query = { since_id: since, epoch: this.epoch, wait_ms: waitMs > 0 ? waitMs : undefined };
    const page = await callRoute(this.http, eventsRoute, { query }, { signal });
    this.epoch ??= page.epoch;
    // An answer that arrives after we stopped listening is dropped whole: the next reader reads it again.
    if (signal?.aborted) return page;
    for (const raw of page.events) {
      if (anyEventSchema.safeParse(raw).success) this.sink.accept(raw as AnyEvent);
      else this.sink.malformed(raw);
    }
    this.sink.advanceTo(page.next_since_id);
    return page;
  }
}
