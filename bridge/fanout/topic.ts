// Subscribers of one `events:server:<id>` topic, grouped by audience tag (bridge/fanout/audience.ts). A broadcast is
// serialized and framed (WebSocket header included) once per protocol version and form, and the same Buffer goes to
// every socket of the tags that form is for (the hot path of the relay: no per-socket JSON, framing or crypto work).
// Plain devices get `session_event {event}`; encrypting devices get `sealed_event {event_id, key_id, nonce,
// ciphertext}` (docs/security.md), never the plaintext. A tag outside an event's audience is never looked at.
import type { DeviceMode } from "../../client/wire/e2e.ts";
import { BRIDGE_CLOSE } from "../../client/wire/close-codes.ts";
import type { Connection } from "../socket/connection.ts";
import { textFrame } from "../protocol/ws-frame.ts";
import { deliveryTo, formFor, type Recipient } from "./audience.ts";
import type { BufferedEvent, EventForm } from "./replay-buffer.ts";

/** Most events one held join may queue (a Redis round trip's worth); past it the socket is a slow consumer. */
const MAX_HELD_EVENTS = 10_000;

/** The group of sockets granted no tag: they get what is not an event (`server_status`) and never an event. */
const UNTAGGED = "";

/** One tag's subscribers, by what they are sent. */
class AudienceGroup {
  constructor(readonly tag: string) {}

  readonly plain = new Set<Connection>();
  readonly sealed = new Set<Connection>();

  of(mode: DeviceMode): Set<Connection> {
    return mode === "e2e" ? this.sealed : this.plain;
  }

  get size(): number {
    return this.plain.size + this.sealed.size;
  }
}

/** The recipient a socket was subscribed as: a plain device of the sole audience unless told otherwise. */
const SOLE_PLAIN: Recipient = { mode: "plain", tag: "*" };

export class EventTopic {
  private readonly groups = new Map<string, AudienceGroup>();
  /** Each subscriber's group, to unsubscribe it. */
  private readonly memberOf = new Map<Connection, AudienceGroup>();
  /** Cluster joins waiting for their replay from Redis: what is broadcast meanwhile queues here (hold/release). */
  private readonly held = new Map<
    Connection,
    { recipient: Recipient; queue: BufferedEvent[]; announced?: Array<[string, string]> }
  >();
  private readonly topicJson: string;

  constructor(readonly topic: string) {
    this.topicJson = JSON.stringify(topic);
  }

  /** Subscribes a socket; one already closed (its channels ended) is never added, or it would stay forever. */
  add(connection: Connection, recipient: Recipient = SOLE_PLAIN): void {
    if (connection.closed) return;
    this.remove(connection);
    const key = recipient.tag ?? UNTAGGED;
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = new AudienceGroup(key)));
    group.of(recipient.mode).add(connection);
    this.memberOf.set(connection, group);
  }

  remove(connection: Connection): void {
    this.held.delete(connection);
    const group = this.memberOf.get(connection);
    if (!group) return;
    this.memberOf.delete(connection);
    group.plain.delete(connection);
    group.sealed.delete(connection);
    if (group.size === 0 && this.groups.get(group.tag) === group) this.groups.delete(group.tag);
  }

  /** Queues what is broadcast from now on for `connection`, until `release` (a cluster join reading its replay). */
  hold(connection: Connection, recipient: Recipient = SOLE_PLAIN): void {
    if (!connection.closed) this.held.set(connection, { recipient, queue: [] });
  }

  /**
   * Sends the replay, then what was broadcast while the join was held that the replay did not hold (ids above
   * `afterId`, the replay's last), and subscribes: nothing lost between the read and the subscription, nothing twice.
   */
  release(connection: Connection, replay: readonly BufferedEvent[], afterId: string | undefined): void {
    const held = this.held.get(connection);
    const recipient = held?.recipient ?? SOLE_PLAIN;
    this.held.delete(connection);
    const queued = (held?.queue ?? []).filter((event) => afterId === undefined || event.id > afterId);
    for (const event of [...replay, ...queued]) {
      // An event without this device's form would be a hole it trusts: it rejoins and is told `gap` instead.
      if (!this.sendTo(connection, event, recipient))
        return connection.close(BRIDGE_CLOSE.restart, "event not available in this device's form");
    }
    // A status announced while the join was held may contradict its reply: it follows the replay.
    for (const [event, payloadJson] of held?.announced ?? [])
      connection.sendEncoded(this.wrap(event, payloadJson, connection.vsn));
    this.add(connection, recipient);
  }

  has(connection: Connection): boolean {
    return this.memberOf.has(connection);
  }

  get size(): number {
    return this.memberOf.size;
  }

  /**
   * Sends one event to every subscriber of its audience in their form, once per tag; a socket that falls too far
   * behind closes itself (Connection).
   */
  broadcast(event: BufferedEvent): void {
    if (this.held.size > 0) this.queueHeld(event);
    if (this.memberOf.size === 0) return;
    const frames = new Map<EventForm, { v1?: Buffer; v2?: Buffer }>();
    for (const tag of event.audience) {
      const group = this.groups.get(tag);
      if (!group) continue;
      if (group.plain.size > 0) this.fanOut(group.plain, formFor(event, "plain", tag), frames);
      if (group.sealed.size > 0) this.fanOut(group.sealed, formFor(event, "e2e", tag), frames);
    }
  }

  /**
   * Pushes one frame that is not an event (`server_status`) to every subscriber, plain and sealed alike, encoded
   * once per protocol version. `payloadJson` is the payload's JSON text.
   */
  announce(event: string, payloadJson: string): void {
    for (const held of this.held.values()) (held.announced ??= []).push([event, payloadJson]);
    this.announceToSubscribed(event, payloadJson);
  }

  /** `announce`, for the subscribed sockets only: a held join's reply already says it. */
  announceToSubscribed(event: string, payloadJson: string): void {
    let v2: Buffer | undefined;
    let v1: Buffer | undefined;
    for (const connection of this.memberOf.keys()) {
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
    const subscribers = [...this.memberOf.keys(), ...this.held.keys()];
    this.groups.clear();
    this.memberOf.clear();
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

  /**
   * One event to one socket (replay after a join): true when sent or not for it (outside its audience), false when
   * the event lacks the form this device is sent.
   */
  sendTo(connection: Connection, event: BufferedEvent, recipient: Recipient = SOLE_PLAIN): boolean {
    const delivery = deliveryTo(event, recipient);
    if (delivery.kind === "not_for_it") return true;
    if (delivery.kind === "missing") return false;
    connection.sendEncoded(this.encode(delivery.form, connection.vsn));
    return true;
  }

  private fanOut(
    subscribers: Set<Connection>,
    form: EventForm | undefined,
    frames: Map<EventForm, { v1?: Buffer; v2?: Buffer }>,
  ): void {
    if (form === undefined) {
      // The server sent this event without the form these devices need (a plain device paired while pushes
      // sealed only were in flight): skipping it would leave a hole they trust. They rejoin, and are told `gap`.
      for (const connection of [...subscribers]) {
        this.remove(connection);
        connection.close(BRIDGE_CLOSE.restart, "event not available in this device's form");
      }
      return;
    }
    let framed = frames.get(form);
    if (!framed) frames.set(form, (framed = {}));
    for (const connection of subscribers) {
      if (connection.vsn === "2.0.0") connection.sendFramed((framed.v2 ??= textFrame(this.encode(form, "2.0.0"))));
      else connection.sendFramed((framed.v1 ??= textFrame(this.encode(form, "1.0.0"))));
    }
  }

  // A broadcast carries null refs: the client accepts it whatever the channel's current join_ref is.
  private encode(form: EventForm, vsn: string): string {
    const name = form.mode === "plain" ? "session_event" : "sealed_event";
    if (vsn === "2.0.0") return `[null,null,${this.topicJson},"${name}",${form.json}]`;
    return `{"join_ref":null,"ref":null,"topic":${this.topicJson},"event":"${name}","payload":${form.json}}`;
  }
}
