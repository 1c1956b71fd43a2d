// The typed call of the event log's route (client/wire/routes/events.ts).
import type { EventsPage } from "../../wire/http.ts";
import { eventsRoute } from "../../wire/routes/events.ts";
import type { RouteInput } from "../../wire/routes/route.ts";
import { RouteCaller } from "../route-caller.ts";

export abstract class EventCalls extends RouteCaller {
  /** A page of the event log (docs/events.md "`GET /events`"); ChatClient's reader and its repairs read it so. */
  async readEvents(
    query: RouteInput<typeof eventsRoute>["query"] = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<EventsPage> {
    return this.call(eventsRoute, { query }, options);
  }
}
