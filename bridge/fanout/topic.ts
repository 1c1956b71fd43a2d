// Subscribers of one `events:server:<id>` topic. A broadcast is serialized and framed (WebSocket header included)
// once per protocol version and form and the same Buffer goes to every socket (the hot path of the relay: no
// per-socket JSON, framing or crypto work). Plain devices get `session_event {event}`; encrypting devices get
// `sealed_event {event_id, key_id, nonce, ciphertext}` (docs/security.md), never the plaintext.
import type { DeviceMode } from "../../client/wire/e2e.ts";
import { BRIDGE_CLOSE } from "../../client/wire/close-codes.ts";
import type { Connection } from "../socket/connection.ts";
import { textFrame } from "../protocol/ws-frame.ts";
import type { BufferedEvent } from "./replay-buffer.ts";

/** Most events one held join may queue (a Redis round trip's worth); past it the socket is a slow consumer. */
const MAX_HELD_EVENTS = 10_000;

export class EventTopic {
  /** Plain subscribers (the name the fan-out benchmark reads). */
  private readonly subscribers = new Set<Connection>();
  private readonly sealedSubscribers = new Set<Connection>();
  /** Cluster joins waiting for their replay from Redis: what is broadcast meanwhile queues here (hold/release). */
  private readonly held = new Map<
    Connection,
    { mode: DeviceMode; queue: BufferedEvent[]; announced?: Array<[string, string]> }
  >();
  private readonly topicJson: string;

  constructor(readonly topic: string) {
    this.topicJson = JSON.stringify(topic);
  }

  /** Subscribes a socket; one already closed (its channels ended) is never added, or it would stay forever. */
  add(connection: Connection, mode: DeviceMode = "plain"): void {
    if (!connection.closed) (mode === "e2e" ? this.sealedSubscribers : this.subscribers).add(connection);
  }

  remove(connection: Connection): void {
    this.subscribers.delete(connection);
    this.sealedSubscribers.delete(connection);
    this.held.delete(connection);
  }

  /** Queues what is broadcast from now on for `connection`, until `release` (a cluster join reading its replay). */
  hold(connection: Connection, mode: DeviceMode = "plain"): void {
    if (!connection.closed) this.held.set(connection, { mode, queue: [] });
  }

  /**
   * Sends the replay, then what was broadcast while the join was held that the replay did not hold (ids above
   * `afterId`, the replay's last), and subscribes: nothing lost between the read and the subscription, nothing twice.
   */
  release(connection: Connection, replay: readonly BufferedEvent[], afterId: string | undefined): void {
    const held = this.held.get(connection);
    const mode = held?.mode ?? "plain";
    this.held.delete(connection);
    const queued = (held?.queue ?? []).filter((event) => afterId === undefined || event.id > afterId);
    for (const event of [...replay, ...queued]) {
      // An event without this device's form would be a hole it trusts: it rejoins and is told `gap` instead.
      if (!this.sendTo(connection, event, mode))
        return connection.close(BRIDGE_CLOSE.restart, "event not available in this device's form");
    }
    // A status announced while the join was held may contradict its reply: it follows the replay.
    for (const [event, payloadJson] of held?.announced ?? [])
      connection.sendEncoded(this.wrap(event, payloadJson, connection.vsn));
    this.add(connection, mode);
  }

  has(connection: Connection): boolean {
    return this.subscribers.has(connection) || this.sealedSubscribers.has(connection);
  }

  get size(): number {
    return this.subscribers.size + this.sealedSubscribers.size;
  }

  /** Sends one event to every subscriber in its form; a socket that falls too far behind closes itself (Connection). */
  broadcast(event: BufferedEvent): void {
    if (this.held.size > 0) this.queueHeld(event);
    if (this.subscribers.size > 0) this.fanOut(this.subscribers, event, "plain");
    if (this.sealedSubscribers.size > 0) this.fanOut(this.sealedSubscribers, event, "e2e");
  }

  /**
   * Pushes one frame that is not an event (`server_status`) to every subscriber, plain and sealed alike, encoded
   * once per protocol version. `payloadJson` is the payload's JSON text.
   */
  announce(event: string, payloadJson: string): void {
    for (const held of this.held.values()) (held.announced ??= []).push([event, payloadJson]);
    let v2: Buffer | undefined;
    let v1: Buffer | undefined;
    for (const connection of [...this.subscribers, ...this.sealedSubscribers]) {
      if (connection.vsn === "2.0.0") connection.sendFramed((v2 ??= textFrame(this.wrap(event, payloadJson, "2.0.0"))));
      else connection.sendFramed((v1 ??= textFrame(this.wrap(event, payloadJson, "1.0.0"))));
    }
  }

  /** A ref-less push of `event` in the socket's protocol version. */
  private wrap(event: string, payloadJson: string, vsn: string): string {
    const name = JSON.stringify(event);
    if (vsn === "2.0.0") return `[null,null,${this.topicJson},${name},${payloadJson}]`;
    return `{"join_ref":null,"ref":null,"topic":${this.topicJson},"event":${name},"payload":${payloadJson}}`;
  }

  /** Closes every subscriber's socket (they reconnect and rejoin) and forgets them. */
  closeAll(code: number, reason: string): void {
    const subscribers = [...this.subscribers, ...this.sealedSubscribers, ...this.held.keys()];
    this.subscribers.clear();
    this.sealedSubscribers.clear();
    this.held.clear();
    for (const connection of subscribers) connection.close(code, reason);
  }

  private queueHeld(event: BufferedEvent): void {
    for (const [connection, { queue }] of this.held) {
      if (queue.length < MAX_HELD_EVENTS) queue.push(event);
      else {
        this.held.delete(connection);
        connection.close(BRIDGE_CLOSE.slowConsumer, "slow consumer");
      }
    }
  }

  /** One event to one socket (replay after a join); false when the event lacks the form this device is sent. */
  sendTo(connection: Connection, event: BufferedEvent, mode: DeviceMode = "plain"): boolean {
    const text = this.encode(event, mode, connection.vsn);
    if (text === undefined) return false;
    connection.sendEncoded(text);
    return true;
  }

  private fanOut(subscribers: Set<Connection>, event: BufferedEvent, mode: DeviceMode): void {
    if ((mode === "plain" ? event.payloadJson : event.sealedJson) === undefined) {
      // The server sent this event without the form these devices need (a plain device paired while pushes
      // sealed only were in flight): skipping it would leave a hole they trust. They rejoin, and are told `gap`.
      const left = [...subscribers];
      subscribers.clear();
      for (const connection of left)
        connection.close(BRIDGE_CLOSE.restart, "event not available in this device's form");
      return;
    }
    let v2: Buffer | undefined;
    let v1: Buffer | undefined;
    for (const connection of subscribers) {
      if (connection.vsn === "2.0.0") connection.sendFramed((v2 ??= textFrame(this.encode(event, mode, "2.0.0")!)));
      else connection.sendFramed((v1 ??= textFrame(this.encode(event, mode, "1.0.0")!)));
    }
  }

  // A broadcast carries null refs: the client accepts it whatever the channel's current join_ref is.
  private encode(event: BufferedEvent, mode: DeviceMode, vsn: string): string | undefined {
    const [name, payload] =
      mode === "plain" ? ["session_event", event.payloadJson] : ["sealed_event", event.sealedJson];
    if (payload === undefined) return undefined;
    if (vsn === "2.0.0") return `[null,null,${this.topicJson},"${name}",${payload}]`;
    return `{"join_ref":null,"ref":null,"topic":${this.topicJson},"event":"${name}","payload":${payload}}`;
  }
}
