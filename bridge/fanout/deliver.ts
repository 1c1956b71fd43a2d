// An event's way to this bridge's sockets, whether it came from the server's channel here or, in a cluster, from the
// node holding the server's link (bridge/cluster/cluster-node.ts, with the id it follows as `after`).
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import type { BridgeCore } from "../core.ts";
import type { ServerState } from "../state/registry.ts";
import type { Arrival, BufferedEvent } from "./replay-buffer.ts";

/**
 * Broadcasts an event once, in order. An id at or below the newest received (the server resending unacked pushes, or
 * a stale push arriving late) is never relayed; one after a hole (its `after` beyond what arrived) first sends the
 * subscribers away: they rejoin from their cursor, before the hole, and are told `gap`.
 */
export function deliverEvent(
  core: Pick<BridgeCore, "log" | "metrics">,
  state: ServerState,
  event: BufferedEvent,
  after: string | undefined,
): Arrival {
  const arrival = state.buffer.push(event, after);
  if (arrival === "duplicate" || arrival === "late") {
    core.metrics.duplicateEvents++;
    if (arrival === "late")
      core.log.warn(
        {
          server_id: state.id,
          event_id: event.id,
          last_id: state.lastId ?? null,
        },
        "event arrived behind newer ones; replay before it is a gap",
      );
    return arrival;
  }
  if (arrival === "after_hole") {
    core.log.warn(
      {
        server_id: state.id,
        event_id: event.id,
        after: after ?? null,
        last_id: state.lastId ?? null,
      },
      "hole in the server's events; subscribers sent to rejoin",
    );
    state.topic.closeAll(BRIDGE_CLOSE.restart, "hole in the event sequence");
  }
  state.relayed(event.id);
  state.topic.broadcast(event);
  core.metrics.eventsRelayed++;
  return arrival;
}
