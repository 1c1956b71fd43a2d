// Dispatches a socket's frames the way Phoenix does: heartbeats on `phoenix`, joins by topic pattern (unknown
// topics get "unmatched topic"), leaves answered ok then closed, duplicate joins end the old channel with
// phx_close under its old join_ref, and a push on a topic the socket has not joined is refused.
import { BRIDGE_CLOSE, type Frame } from "../../client/wire/frames.ts";
import type { BridgeCore } from "../core.ts";
import { ApiRelay } from "../relay/api-relay.ts";
import { replyFrame } from "../protocol/serializer.ts";
import type { Connection, ChannelEntry } from "../socket/connection.ts";
import { eventsChannel } from "./events-channel.ts";
import { pairingChannel } from "./pairing-channel.ts";
import { PendingPairs, serverChannel } from "./server-channel.ts";
import type { JoinOutcome, TopicHandler } from "./types.ts";

export class Router {
  private readonly routes: Array<[RegExp, TopicHandler]>;

  constructor(private readonly core: BridgeCore) {
    const pending = new PendingPairs(core.clock, core.answers);
    const relay = new ApiRelay(core);
    this.routes = [
      [/^pairing$/, pairingChannel(core, pending)],
      [/^events:server:([A-Za-z0-9_-]{1,64})$/, eventsChannel(core, relay)],
      [/^server:([A-Za-z0-9_-]{1,64})$/, serverChannel(core, pending, relay)],
    ];
  }

  handle(connection: Connection, frame: Frame): void {
    if (frame.topic === "phoenix" && frame.event === "heartbeat") return connection.send(replyFrame(frame, "ok", {}));
    switch (frame.event) {
      case "phx_join":
        return this.join(connection, frame);
      case "phx_leave":
        return this.leave(connection, frame);
      default:
        return this.push(connection, frame);
    }
  }

  private join(connection: Connection, frame: Frame): void {
    const existing = connection.channels.get(frame.topic);
    if (existing) this.close(connection, frame.topic, existing, "duplicate join");
    else if (connection.channels.size >= this.core.config.maxChannelsPerSocket) {
      this.core.log.warn({ socket: connection.id, topic: frame.topic }, "channel cap reached");
      return this.answerJoin(connection, frame, { status: "error", response: { reason: "too_many_channels" } });
    }
    const route = this.match(frame.topic);
    if (!route) return this.answerJoin(connection, frame, { status: "error", response: { reason: "unmatched topic" } });
    const attempt = route.handler.join(connection, frame, route.match);
    connection.channels.set(frame.topic, attempt.entry);
    const settle = (outcome: JoinOutcome) => {
      // A leave, a newer join or a closed socket superseded this join while it waited: its answer is moot.
      if (connection.closed || connection.channels.get(frame.topic) !== attempt.entry) return;
      if (outcome.status === "error") {
        connection.channels.delete(frame.topic);
        attempt.entry.terminate("join refused");
      }
      this.answerJoin(connection, frame, outcome);
    };
    if (attempt.outcome instanceof Promise) {
      attempt.outcome.then(settle).catch((error: unknown) => {
        // A bug in a handler's deferred join must not become an unhandled rejection (it would end the process).
        this.core.log.error(
          {
            socket: connection.id,
            topic: frame.topic,
            error: error instanceof Error ? error.message : String(error),
          },
          "join handler failed",
        );
        connection.close(BRIDGE_CLOSE.internalError, "internal error");
      });
    } else settle(attempt.outcome);
  }

  private answerJoin(connection: Connection, frame: Frame, outcome: JoinOutcome): void {
    connection.send(replyFrame(frame, outcome.status, outcome.response));
    if (outcome.status === "ok") {
      this.core.metrics.joinsOk++;
      // A socket that closed on the reply (a slow consumer) must not be subscribed after its channels ended.
      if (!connection.closed) outcome.afterReply?.();
    } else this.core.metrics.joinsRefused++;
  }

  private leave(connection: Connection, frame: Frame): void {
    const entry = connection.channels.get(frame.topic);
    connection.send(replyFrame(frame, "ok", {}));
    // A leave under an older join_ref is for a channel already replaced (as Phoenix does, it ends nothing now).
    if (entry && (frame.joinRef === null || frame.joinRef === entry.joinRef))
      this.close(connection, frame.topic, entry, "left");
  }

  /** Ends a channel and tells the client with phx_close under the channel's own join_ref. */
  private close(connection: Connection, topic: string, entry: ChannelEntry, reason: string): void {
    connection.channels.delete(topic);
    entry.terminate(reason);
    connection.send({ joinRef: entry.joinRef, ref: entry.joinRef, topic, event: "phx_close", payload: {} });
  }

  private push(connection: Connection, frame: Frame): void {
    const entry = connection.channels.get(frame.topic);
    if (!entry || (frame.joinRef !== null && frame.joinRef !== entry.joinRef)) {
      this.core.log.warn(
        {
          socket: connection.id,
          topic: frame.topic,
          event: frame.event,
        },
        "push on a topic the socket has not joined",
      );
      return connection.send(replyFrame(frame, "error", { reason: "unmatched topic" }));
    }
    entry.handleIn(frame);
  }

  private match(topic: string): { handler: TopicHandler; match: RegExpExecArray } | undefined {
    for (const [pattern, handler] of this.routes) {
      const match = pattern.exec(topic);
      if (match) return { handler, match };
    }
    return undefined;
  }
}
