// `events:server:<id>`: an app's read-only feed of its server's events. The socket's device token must belong to
// that server; a join with since_id first replays the gap from the buffer, or says the gap must come over HTTP
// (older than the buffer, another store's epoch, or too many bytes to write in one turn). Its one push is `api`, a
// call of the server's HTTP API that the relay carries (bridge/relay/api-relay.ts); anything else is read-only.
import type { BridgeReason } from "../../client/wire/bridge-errors.ts";
import type { DeviceMode } from "../../client/wire/e2e.ts";
import { eventsJoinParamsSchema, type Frame } from "../../client/wire/frames.ts";
import type { ClusterNode } from "../cluster/cluster-node.ts";
import type { HistoryRead } from "../cluster/history.ts";
import type { BridgeCore } from "../core.ts";
import type { ApiRelay } from "../relay/api-relay.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { Connection } from "../socket/connection.ts";
import { heldBytes, type BufferedEvent } from "../fanout/replay-buffer.ts";
import type { ServerState } from "../state/registry.ts";
import { inertEntry, refuse, type JoinAttempt, type JoinOutcome, type TopicHandler } from "./types.ts";

export function eventsChannel(core: BridgeCore, relay: ApiRelay): TopicHandler {
  return {
    join(connection, frame, match): JoinAttempt {
      const serverId = match[1]!;
      const refused = (reason: BridgeReason, logMsg: string): JoinAttempt => {
        core.log.log("warn", logMsg, { socket: connection.id, address: connection.address, topic: frame.topic });
        return { entry: inertEntry(frame.joinRef), outcome: refuse(reason) };
      };
      const params = eventsJoinParamsSchema.safeParse(frame.payload);
      if (!params.success) return refused("invalid_params", "events join with invalid params");
      if (!connection.tokenHash) return refused("unauthorized", "events join without a device token");
      // Scoped to this server: what another server grants never decides who joins this topic.
      const tokenHash = connection.tokenHash;
      if (core.registry.deviceOf(serverId, tokenHash) === undefined) {
        if (!core.cluster) return refusedDevice(core, tokenHash, refused);
        // A grant another node wrote moments ago (a device that just paired there) may not have reached this node yet:
        // read the server's record from Redis before refusing, since a refusal makes the library forget its
        // credentials for good.
        const cluster = core.cluster;
        let joined: JoinAttempt | undefined;
        const outcome = cluster.refresh(serverId).then(() => {
          if (core.registry.deviceOf(serverId, tokenHash) === undefined) return refusedDevice(core, tokenHash, refused).outcome;
          joined = admit(core, relay, connection, frame, serverId, params.data);
          return joined.outcome;
        });
        const entry = {
          joinRef: frame.joinRef,
          handleIn: (pushed: Frame) => joined?.entry.handleIn(pushed),
          terminate: (reason: string) => joined?.entry.terminate(reason),
        };
        return { entry, outcome };
      }
      return admit(core, relay, connection, frame, serverId, params.data);
    },
  };
}

function refusedDevice(core: BridgeCore, tokenHash: string, refused: (reason: BridgeReason, logMsg: string) => JoinAttempt): JoinAttempt {
  const reason = core.registry.knowsToken(tokenHash) ? "events join with another server's token" : "events join with an unknown or revoked token";
  return refused("unauthorized", reason);
}

/** A device of this server joins: its channel entry, and its replay (from the buffer, or the cluster's history). */
function admit(core: BridgeCore, relay: ApiRelay, connection: Connection, frame: Frame, serverId: string, params: { since_id?: string | undefined; epoch?: string | undefined }): JoinAttempt {
  const state = core.registry.get(serverId)!;
  const entry = {
    joinRef: frame.joinRef,
    handleIn: (pushed: Frame) => {
      if (pushed.event === "api") return relay.forward(connection, state, pushed);
      core.log.log("warn", "app push on a read-only topic refused", { socket: connection.id, topic: pushed.topic, event: pushed.event });
      connection.send(replyFrame(pushed, "error", { reason: "read_only" }));
    },
    terminate: () => {
      state.topic.remove(connection);
      relay.appGone(connection);
    },
  };
  const mode = core.registry.modeOf(serverId, connection.tokenHash!);
  const { since_id: sinceId, epoch } = params;
  const outcome = core.cluster ? clusterReplayOutcome(core, core.cluster, connection, state, mode, sinceId, epoch) : replayOutcome(core, connection, state, mode, sinceId, epoch);
  return { entry, outcome };
}

function replayOutcome(core: BridgeCore, connection: Connection, state: ServerState, mode: DeviceMode, sinceId: string | undefined, epoch: string | undefined): JoinOutcome {
  const known = { last_event_id: state.lastId ?? null, epoch: state.epoch ?? null };
  const subscribe = () => state.topic.add(connection, mode);
  if (sinceId === undefined) {
    return { status: "ok", response: { replay: "none", replayed: 0, ...known }, afterReply: subscribe };
  }
  // A cursor of another store (the server's store was reset, its ids started over) is never replayed: the buffer
  // would find "nothing after it" and call that complete. An unknown current epoch cannot vouch either.
  const otherStore = epoch !== undefined && epoch !== state.epoch;
  const held = otherStore ? undefined : state.buffer.after(sinceId);
  // A replay is written in one turn: one that would fill half the slow-consumer bound goes over HTTP (paged) instead.
  // So does one holding an event without this device's form (sent sealed only before a plain device paired).
  const missing = held && replayBytes(held) <= core.config.maxBufferedBytes / 2 && held.every((event) => hasForm(event, mode)) ? held : undefined;
  if (missing === undefined) {
    core.metrics.replayMisses++;
    return { status: "ok", response: { replay: "gap", replayed: 0, ...known }, afterReply: subscribe };
  }
  core.metrics.replayHits++;
  return {
    status: "ok",
    response: { replay: "complete", replayed: missing.length, ...known },
    // Replay and subscription happen in one turn of the event loop: no live event can slip between them.
    afterReply: () => {
      for (const event of missing) state.topic.sendTo(connection, event, mode);
      subscribe();
    },
  };
}

/**
 * A cluster node's replay comes from the shared history (bridge/cluster/history.ts). The socket is held on the topic
 * first (what is broadcast meanwhile queues), then the history is read; the reply sends the replay, then the queued
 * events it did not hold: nothing lost between the read and the subscription, nothing twice. Redis not answering is
 * a gap, never a failed join.
 */
async function clusterReplayOutcome(core: BridgeCore, cluster: ClusterNode, connection: Connection, state: ServerState, mode: DeviceMode, sinceId: string | undefined, epoch: string | undefined): Promise<JoinOutcome> {
  state.topic.hold(connection, mode);
  let read: HistoryRead;
  try {
    read = await cluster.read(state.id, sinceId);
  } catch (error) {
    core.log.log("warn", "replay read failed; answered gap", { socket: connection.id, server_id: state.id, error: error instanceof Error ? error.message : String(error) });
    read = { meta: state.epoch !== undefined && state.lastId !== undefined ? { epoch: state.epoch, lastId: state.lastId } : undefined, events: undefined };
  }
  const known = { last_event_id: read.meta?.lastId ?? null, epoch: read.meta?.epoch ?? null };
  const subscribeAfter = (events: readonly BufferedEvent[], afterId: string | undefined) => () => state.topic.release(connection, events, afterId);
  if (sinceId === undefined) return { status: "ok", response: { replay: "none", replayed: 0, ...known }, afterReply: subscribeAfter([], read.meta?.lastId) };
  const otherStore = epoch !== undefined && epoch !== read.meta?.epoch;
  const held = otherStore ? undefined : read.events;
  const missing = held && replayBytes(held) <= core.config.maxBufferedBytes / 2 && held.every((event) => hasForm(event, mode)) ? held : undefined;
  if (missing === undefined) {
    core.metrics.replayMisses++;
    return { status: "ok", response: { replay: "gap", replayed: 0, ...known }, afterReply: subscribeAfter([], read.meta?.lastId) };
  }
  core.metrics.replayHits++;
  return { status: "ok", response: { replay: "complete", replayed: missing.length, ...known }, afterReply: subscribeAfter(missing, missing.at(-1)?.id ?? sinceId) };
}

function hasForm(event: BufferedEvent, mode: DeviceMode): boolean {
  return (mode === "e2e" ? event.sealedJson : event.payloadJson) !== undefined;
}

/** Roughly what a replay writes: its payloads (JSON text, so length is close to bytes) and their envelopes. */
function replayBytes(events: readonly BufferedEvent[]): number {
  let total = 0;
  for (const event of events) total += heldBytes(event) + 100;
  return total;
}
