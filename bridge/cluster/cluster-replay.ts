// A cluster node's replay capability (docs/bridge.md "Cluster"): each server's history of relayed events kept in a
// Redis stream (history.ts) beside this node's buffer. The node whose link relays an event fans it out here and
// appends it to the stream, which publishes it to every other node; the others fan out what they hear in the order
// the history holds it. A link that moves to this node takes the history's place first, and a history that does not
// continue (a new store, a cursor it does not hold) starts over on every node.
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { deliverEvent } from "../fanout/deliver.ts";
import type { Arrival, BufferedEvent } from "../fanout/replay-buffer.ts";
import type { NodeParts } from "../state/memory-state.ts";
import type { Registry, ServerState } from "../state/registry.ts";
import type { HistoryRead, Relayed, ReplayCapability } from "../state/shared-state.ts";
import { History } from "./history.ts";
import type { NodeRedis } from "./keys.ts";
import type { ClusterMessage } from "./wire.ts";

export interface ClusterReplayOptions extends NodeRedis {
  /** How much of each server's history the stream keeps. */
  bounds: { events: number; bytes: number };
  registry: Registry;
  parts: Pick<NodeParts, "log" | "metrics">;
  /** Where a failed Redis write is reported (the fan-out here has already gone on). */
  failed: (what: string, error: unknown) => void;
}

/** What another node published about a server's history: an event it relayed, or a restart of the history. */
export type HistoryMessage = Extract<ClusterMessage, { kind: "event" | "reset" }>;

export class ClusterReplay implements ReplayCapability {
  private readonly history: History;

  constructor(private readonly options: ClusterReplayOptions) {
    this.history = new History(options);
  }

  /**
   * A link claimed here takes the shared history's epoch and last relayed id (another node may have held the link),
   * so the server resumes where the cluster left off and its resends land as duplicates.
   */
  async adopt(state: ServerState): Promise<void> {
    const meta = await this.history.meta(state.id);
    if (meta && (meta.epoch !== state.epoch || meta.lastId !== state.lastId))
      syncHistory(state, meta.epoch, meta.lastId, state.epoch !== undefined && meta.epoch !== state.epoch);
  }

  /** A history that does not continue starts over on every node (ordered before this link's first event). */
  resume(state: ServerState, epoch: string, cursor: string): string {
    const { registry } = this.options;
    const continues = registry.continues(state, epoch, cursor);
    const storeChanged = state.epoch !== undefined && state.epoch !== epoch;
    const resumeAfter = registry.resume(state, epoch, cursor);
    if (!continues)
      void this.history
        .reset(state.id, epoch, resumeAfter, storeChanged)
        .catch((error: unknown) => this.options.failed("history reset", error));
    return resumeAfter;
  }

  /**
   * Fans the event out here and appends it to the shared history; the server's push is acked once it is there, so
   * it is resent if this node dies first.
   */
  relay(state: ServerState, event: BufferedEvent, after: string | undefined, deletedSession?: string): Relayed {
    const prev = state.lastId;
    const arrival = deliverEvent(this.options.parts, state, event, after);
    if (arrival !== "duplicate" && deletedSession !== undefined) this.forgetSession(state, deletedSession);
    return { arrival, kept: this.keep(state, event, arrival, arrival === "after_hole" ? after! : (prev ?? event.id)) };
  }

  read(state: ServerState, sinceId: string | undefined): Promise<HistoryRead> {
    return this.history.read(state.id, sinceId);
  }

  forget(state: ServerState, eventIds: readonly string[]): void {
    const doomed = new Set(eventIds);
    state.buffer.drop((event) => doomed.has(event.id));
    void this.history
      .forgetEvents(state.id, eventIds)
      .catch((error: unknown) => this.options.failed("history forget", error));
  }

  /** Another node's event (fanned out to this node's sockets) or restart of a server's history. */
  heard(state: ServerState, message: HistoryMessage): void {
    if (message.kind === "event") deliverEvent(this.options.parts, state, message.event, message.prev);
    else syncHistory(state, message.epoch, message.afterId, message.storeChanged);
  }

  private keep(state: ServerState, event: BufferedEvent, arrival: Arrival, prev: string): Promise<void> | undefined {
    if (arrival === "duplicate") return undefined;
    if (arrival === "late") return this.lateArrival(state);
    return this.append(state, event, prev);
  }

  private forgetSession(state: ServerState, sessionId: string): void {
    state.buffer.drop((event) => event.sessionId === sessionId);
    void this.history
      .forgetSession(state.id, sessionId)
      .catch((error: unknown) => this.options.failed("history forget", error));
  }

  /** Appends an event this node's server link relayed to the shared history (and every node's fan-out). */
  private async append(state: ServerState, event: BufferedEvent, prev: string): Promise<void> {
    try {
      await this.history.append(state.id, event, prev, state.epoch ?? "");
    } catch (error) {
      // Live fan-out here went on; other nodes' subscribers see the hole on the next event and rejoin.
      this.options.failed("history append", error);
    }
  }

  /** An event came behind newer ones on the link here: the shared history no longer vouches for what is before. */
  private async lateArrival(state: ServerState): Promise<void> {
    if (state.lastId !== undefined)
      await this.history
        .cutBefore(state.id, state.lastId)
        .catch((error: unknown) => this.options.failed("history cut", error));
  }
}

/**
 * The link's node restarted the server's history after `afterId`: a new store sends this node's subscribers away
 * (their rejoin from the old epoch is answered `gap`), and so does a restart past events they never got.
 */
function syncHistory(state: ServerState, epoch: string, afterId: string, storeChanged: boolean): void {
  const missed = state.lastId !== undefined && state.lastId < afterId;
  if (storeChanged) state.topic.closeAll(BRIDGE_CLOSE.restart, "server store reset");
  else if (missed) state.topic.closeAll(BRIDGE_CLOSE.restart, "events missed while the link moved");
  state.restartHistory(epoch, afterId);
}
