// Subscribers of one `events:server:<id>` topic. A broadcast is serialized and framed (WebSocket header included)
// once per protocol version and the same Buffer goes to every socket (the hot path of the relay: no per-socket
// JSON or framing work).
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import type { Connection } from "../socket/connection.ts";
import { textFrame } from "../protocol/ws-frame.ts";
import type { BufferedEvent } from "./replay-buffer.ts";

/** Most events one held join may queue (a Redis round trip's worth); past it the socket is a slow consumer. */
const MAX_HELD_EVENTS = 10_000;

export class EventTopic {
  private readonly subscribers = new Set<Connection>();
  /** Cluster joins waiting for their replay from Redis: what is broadcast meanwhile queues here (hold/release). */
  private readonly held = new Map<Connection, BufferedEvent[]>();
  private readonly topicJson: string;

  constructor(readonly topic: string) {
    this.topicJson = JSON.stringify(topic);
  }

  /** Subscribes a socket; one already closed (its channels ended) is never added, or it would stay forever. */
  add(connection: Connection): void {
    if (!connection.closed) this.subscribers.add(connection);
  }

  remove(connection: Connection): void {
    this.subscribers.delete(connection);
    this.held.delete(connection);
  }

  /** Queues what is broadcast from now on for `connection`, until `release` (a cluster join reading its replay). */
  hold(connection: Connection): void {
    if (!connection.closed) this.held.set(connection, []);
  }

  /**
   * Sends the replay, then what was broadcast while the join was held that the replay did not hold (ids above
   * `afterId`, the replay's last), and subscribes: nothing lost between the read and the subscription, nothing twice.
   */
  release(connection: Connection, replay: readonly BufferedEvent[], afterId: string | undefined): void {
    const queued = this.held.get(connection) ?? [];
    this.held.delete(connection);
    for (const event of replay) this.sendTo(connection, event);
    for (const event of queued) if (afterId === undefined || event.id > afterId) this.sendTo(connection, event);
    this.add(connection);
  }

  has(connection: Connection): boolean {
    return this.subscribers.has(connection);
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** Sends one event to every subscriber; a socket that falls too far behind closes itself (Connection). */
  broadcast(event: BufferedEvent): void {
    if (this.held.size > 0) this.queueHeld(event);
    if (this.subscribers.size === 0) return;
    let v2: Buffer | undefined;
    let v1: Buffer | undefined;
    for (const connection of this.subscribers) {
      if (connection.vsn === "2.0.0") connection.sendFramed((v2 ??= textFrame(this.encodeV2(event))));
      else connection.sendFramed((v1 ??= textFrame(this.encodeV1(event))));
    }
  }

  /** Closes every subscriber's socket (they reconnect and rejoin) and forgets them. */
  closeAll(code: number, reason: string): void {
    const subscribers = [...this.subscribers, ...this.held.keys()];
    this.subscribers.clear();
    this.held.clear();
    for (const connection of subscribers) connection.close(code, reason);
  }

  private queueHeld(event: BufferedEvent): void {
    for (const [connection, queue] of this.held) {
      if (queue.length < MAX_HELD_EVENTS) queue.push(event);
      else {
        this.held.delete(connection);
        connection.close(BRIDGE_CLOSE.slowConsumer, "slow consumer");
      }
    }
  }

  /** One event to one socket (replay after a join). */
  sendTo(connection: Connection, event: BufferedEvent): void {
    connection.sendEncoded(connection.vsn === "2.0.0" ? this.encodeV2(event) : this.encodeV1(event));
  }

  // A broadcast carries null refs: the client accepts it whatever the channel's current join_ref is.
  private encodeV2(event: BufferedEvent): string {
    return `[null,null,${this.topicJson},"session_event",${event.payloadJson}]`;
  }

  private encodeV1(event: BufferedEvent): string {
    return `{"join_ref":null,"ref":null,"topic":${this.topicJson},"event":"session_event","payload":${event.payloadJson}}`;
  }
}
