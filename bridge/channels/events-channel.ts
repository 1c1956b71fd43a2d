// `events:server:<id>`: an app's read-only feed of its server's events. The socket's device token must belong to
// that server; a join with since_id first replays the gap from the buffer, or says the gap must come over HTTP
// (older than the buffer, another store's epoch, or too many bytes to write in one turn). Its one push is `api`, a
// call of the server's HTTP API that the relay carries (bridge/relay/api-relay.ts); anything else is read-only.
import type { BridgeReason } from "../../client/wire/bridge-errors.ts";
import { eventsJoinParamsSchema, type Frame } from "../../client/wire/frames.ts";
import type { BridgeCore } from "../core.ts";
import type { ApiRelay } from "../relay/api-relay.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { ChannelEntry, Connection } from "../socket/connection.ts";
import { deliveryTo, formFor, type Recipient } from "../fanout/audience.ts";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";
import type { ServerState } from "../state/registry.ts";
import { hasForm, type HistoryRead } from "../state/shared-state.ts";
import { refuse, type JoinOutcome, type TopicHandler } from "./types.ts";

type EventsParams = { since_id?: string | undefined; epoch?: string | undefined };

export function eventsChannel(core: BridgeCore, relay: ApiRelay): TopicHandler {
  return {
    join(connection, frame, match) {
      // The router needs the entry now; it serves the device once admitted.
      const entry = new EventsEntry(frame.joinRef, core, relay, connection);
      return { entry, outcome: joinEvents(core, connection, frame, match[1]!, entry) };
    },
  };
}

/**
 * A socket's place on one server's events topic, from its join to its end. One per idle socket, so a class: its
 * methods are shared, where an object literal of arrow functions made two closures each holding the join's scope
 * (the join frame included), and under tsx (which keeps function names) each closure its own property table:
 * ~1.5 KB per socket (docs/benchmarks.md "10,000 sockets, on a quiet machine").
 */
class EventsEntry implements ChannelEntry {
  /** The server's state once the device is admitted; until then a push or a terminate does nothing. */
  private state: ServerState | undefined;

  constructor(
    readonly joinRef: string | null,
    private readonly core: BridgeCore,
    private readonly relay: ApiRelay,
    private readonly connection: Connection,
  ) {}

  admit(state: ServerState): void {
    this.state = state;
  }

  handleIn(pushed: Frame): void {
    if (!this.state) return;
    if (pushed.event === "api") return this.relay.forward(this.connection, this.state, pushed);
    this.core.log.warn(
      { socket: this.connection.id, topic: pushed.topic, event: pushed.event },
      "app push on a read-only topic refused",
    );
    this.connection.send(replyFrame(pushed, "error", { reason: "read_only" }));
  }

  terminate(): void {
    if (!this.state) return;
    this.state.topic.remove(this.connection);
    this.relay.appGone(this.connection);
  }
}

/**
 * The one events join: params, the device's grant on this server (read again from the shared state before a
 * refusal, since a device that just paired on another node may not have reached this one, and a refusal makes the
 * library forget its credentials for good), then the replay.
 */
async function joinEvents(
  core: BridgeCore,
  connection: Connection,
  frame: Frame,
  serverId: string,
  entry: EventsEntry,
): Promise<JoinOutcome> {
  const refused = (reason: BridgeReason, logMsg: string): JoinOutcome => {
    core.log.warn({ socket: connection.id, address: connection.address, topic: frame.topic }, logMsg);
    return refuse(reason);
  };
  const params = eventsJoinParamsSchema.safeParse(frame.payload);
  if (!params.success) return refused("invalid_params", "events join with invalid params");
  const tokenHash = connection.tokenHash;
  if (!tokenHash) return refused("unauthorized", "events join without a device token");
  // Scoped to this server: what another server grants never decides who joins this topic.
  const grant = await core.grants.grantOf(serverId, tokenHash);
  if (grant === undefined) {
    return refused(
      "unauthorized",
      core.registry.knowsToken(tokenHash)
        ? "events join with another server's token"
        : "events join with an unknown or revoked token",
    );
  }
  const state = core.registry.get(serverId)!;
  entry.admit(state);
  return replayOutcome(core, connection, state, { mode: grant.mode, tag: grant.audience }, params.data);
}

/**
 * The one replay, from the shared state's history. The socket is held on the topic first (what is broadcast
 * meanwhile queues), then the history is read; the reply sends the replay, then the queued events it did not hold:
 * nothing lost between the read and the subscription, nothing twice. A gap is answered when the history cannot
 * vouch for everything after since_id, for another store's cursor, for a replay over half the slow-consumer bound
 * (written in one turn; HTTP pages it), and when an event lacks this device's form. A failed read is a gap, never a
 * failed join. The reply says whether the server's link is up (`server_online`).
 */
async function replayOutcome(
  core: BridgeCore,
  connection: Connection,
  state: ServerState,
  recipient: Recipient,
  { since_id: sinceId, epoch }: EventsParams,
): Promise<JoinOutcome> {
  state.topic.hold(connection, recipient);
  const [read, link] = await Promise.all([
    readHistory(core, connection, state, sinceId),
    core.servers.linkStatus(state),
  ]);
  const known = {
    last_event_id: read.meta?.lastId ?? null,
    epoch: read.meta?.epoch ?? null,
    server_online: link.online,
  };
  const subscribeAfter = (events: readonly BufferedEvent[], afterId: string | undefined) => () =>
    state.topic.release(connection, events, afterId);
  if (sinceId === undefined)
    return {
      status: "ok",
      response: { replay: "none", replayed: 0, ...known },
      afterReply: subscribeAfter([], read.meta?.lastId),
    };
  // A cursor of another store (the server's store was reset, its ids started over) is never replayed: the history
  // would find "nothing after it" and call that complete. An unknown current epoch cannot vouch either.
  const otherStore = epoch !== undefined && epoch !== read.meta?.epoch;
  const held = otherStore ? undefined : read.events;
  const missing =
    held &&
    replayBytes(held, recipient) <= core.config.maxBufferedBytes / 2 &&
    held.every((event) => hasForm(event, recipient))
      ? held
      : undefined;
  if (missing === undefined) {
    core.metrics.replayMisses++;
    return {
      status: "ok",
      response: { replay: "gap", replayed: 0, ...known },
      afterReply: subscribeAfter([], read.meta?.lastId),
    };
  }
  core.metrics.replayHits++;
  return {
    status: "ok",
    // Counted as this device is sent them: how many events others got is none of its business.
    response: { replay: "complete", replayed: missing.filter((event) => sentTo(event, recipient)).length, ...known },
    afterReply: subscribeAfter(missing, missing.at(-1)?.id ?? sinceId),
  };
}

async function readHistory(
  core: BridgeCore,
  connection: Connection,
  state: ServerState,
  sinceId: string | undefined,
): Promise<HistoryRead> {
  try {
    return await core.replay.read(state, sinceId);
  } catch (error) {
    core.log.warn(
      {
        socket: connection.id,
        server_id: state.id,
        error: error instanceof Error ? error.message : String(error),
      },
      "replay read failed; answered gap",
    );
    return {
      meta:
        state.epoch !== undefined && state.lastId !== undefined
          ? { epoch: state.epoch, lastId: state.lastId }
          : undefined,
      events: undefined,
    };
  }
}

/** Roughly what a replay writes to this device: its forms (JSON text, so length is close to bytes) and envelopes. */
function replayBytes(events: readonly BufferedEvent[], recipient: Recipient): number {
  let total = 0;
  for (const event of events) total += (formFor(event, recipient.mode, recipient.tag)?.json.length ?? 0) + 100;
  return total;
}

function sentTo(event: BufferedEvent, recipient: Recipient): boolean {
  return deliveryTo(event, recipient).kind === "form";
}
