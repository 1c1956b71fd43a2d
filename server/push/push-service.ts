// Web Push to closed apps (docs/push.md): takes each committed event once, in order, from the log's follower
// (server/events/event-follower.ts), turns the ones that matter into pushes (triggers.ts), and hands
// one delivery per subscription to the queue, with each device's privacy choice applied. It also owns the
// subscriptions and settings the /push routes change, and the "revoked" push a device gets when it is removed.
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../clock.ts";
import type { PushConfig } from "../config/push.ts";
import type { Db } from "../db/database.ts";
import type { EventConsumer, StoredEvent } from "../events/event-follower.ts";
import type { EventStore } from "../events/event-store.ts";
import type { PairingService } from "../pairing/pairing-service.ts";
import { DeliveryQueue, DEFAULT_LIMITS, type DeliveryLimits } from "./delivery-queue.ts";
import { endpointProblem } from "./endpoint-policy.ts";
import { REVOKED_BODY, REVOKED_TITLE, type PushPayload } from "./payload.ts";
import { PushSender, topicOf, type SendOutcome, type SendOptions } from "./sender.ts";
import { SubscriptionStore, type StoredSubscription } from "./subscription-store.ts";
import { PushTriggers, type LogEvent, type PushIntent } from "./triggers.ts";
import type { VapidKeys } from "./vapid-keys.ts";

/** The event types a trigger reads; the follower skips the rest (streamed partials are most of the log). */
const READ_TYPES = [
  "final",
  "request_cancelled",
  "error",
  "request_completed",
  "session_deleted",
  "application_notification_created",
  "application_notification_updated",
  "application_notification_dismissed",
  "application_notification_expired",
  "session_notification_created",
  "session_notification_updated",
  "session_notification_resolved",
  "session_notification_dismissed",
  "session_notification_expired",
];
/** A revoked device's push waits at most this long at the push service for the phone to come online. */
const REVOKED_TTL_SECONDS = 28 * 24 * 3600;

export interface PushServiceDeps {
  db: Db;
  events: Pick<EventStore, "latestId" | "follower">;
  pairing: PairingService;
  config: PushConfig;
  keys: VapidKeys;
  clock: Clock;
  log: FastifyBaseLogger;
  shutdown: AbortSignal;
  /** A chat's title for previews (undefined: none, or the chat is gone). */
  chatTitle: (sessionId: string) => string | undefined;
  /** The people who may write a chat: its pushes go to their devices only (docs/people.md "Push"). */
  chatWriters: (sessionId: string) => readonly string[];
  /** Tests and the benchmark replace the sender or the limits; the default posts with undici. */
  send?: (subscription: StoredSubscription, payload: string, options: SendOptions) => Promise<SendOutcome>;
  limits?: Partial<DeliveryLimits>;
}

export class PushService implements EventConsumer {
  readonly types = READ_TYPES;
  readonly subscriptions: SubscriptionStore;
  readonly queue: DeliveryQueue;
  private readonly triggers: PushTriggers;
  private readonly sender: PushSender;
  /** Events after this id are not taken yet: a start pushes nothing for what happened while the server was down. */
  private cursor: number;
  private readonly unfollow: () => void;
  /** Subscriptions and preview choices, read again after every change. */
  private cached: { subscriptions: StoredSubscription[]; previews: Set<string> } | undefined;

  constructor(private readonly deps: PushServiceDeps) {
    const { db, config, clock } = deps;
    this.subscriptions = new SubscriptionStore(db, () => clock.now());
    this.sender = new PushSender(deps.keys, config.subject);
    this.triggers = new PushTriggers(config, () => clock.now(), deps.chatTitle);
    this.queue = new DeliveryQueue(
      {
        send: deps.send ?? ((subscription, payload, options) => this.sender.send(subscription, payload, options)),
        refuse: (endpoint) => endpointProblem(endpoint, config),
        gone: (endpoint) => this.changed(() => this.subscriptions.removeEndpoint(endpoint)),
        clock,
        log: deps.log,
        signal: deps.shutdown,
      },
      { ...DEFAULT_LIMITS, ...deps.limits },
    );
    this.cursor = deps.events.latestId;
    this.unfollow = deps.events.follower.follow(this);
    deps.shutdown.addEventListener("abort", () => this.unfollow(), { once: true });
  }

  get publicKey(): string {
    return this.deps.keys.publicKey;
  }

  /** Runs `change` to the stored subscriptions and forgets what was cached of them. */
  changed<T>(change: () => T): T {
    try {
      return change();
    } finally {
      this.cached = undefined;
    }
  }

  /**
   * A device was revoked: its subscriptions and settings go, whatever was waiting for it is dropped, and each of its
   * subscriptions gets one "revoked" push, so its service worker wipes the saved chats even while the app is closed.
   */
  revoked(deviceId: string): void {
    const gone = this.changed(() => this.subscriptions.removeDevice(deviceId));
    this.queue.dropDevice(deviceId);
    const payload: PushPayload = { v: 1, type: "revoked", tag: "revoked", title: REVOKED_TITLE, body: REVOKED_BODY };
    for (const subscription of gone) {
      this.queue.enqueue({
        subscription,
        tag: "revoked",
        payload: JSON.stringify(payload),
        urgency: "high",
        ttlSeconds: REVOKED_TTL_SECONDS,
        coalesce: false,
      });
    }
  }

  /** Resolves once every event committed so far has been read (its pushes queued). */
  async caughtUp(): Promise<void> {
    this.deps.events.follower.catchUp();
  }

  /** Resolves once every committed event has been read and every push it made was sent or given up. */
  async settled(): Promise<void> {
    await this.caughtUp();
    await this.queue.idle();
  }

  position(): number {
    return this.cursor;
  }

  /** Pruned away under us (a huge burst): go on from what is left; push is best effort. */
  behind(oldestValid: number): void {
    this.cursor = oldestValid;
  }

  /** Bodies come as stored, without the session versions list() puts back: no trigger needs them. */
  receive(events: StoredEvent[], through: number): boolean {
    if (!this.deps.shutdown.aborted) {
      for (const event of events) {
        this.cursor = event.id;
        const intents = this.triggers.intentsOf(JSON.parse(event.body) as LogEvent);
        if (intents.length === 0) continue;
        const people = this.peopleOf(event.session_id, event.audience);
        for (const intent of intents) this.fanOut(intent, people);
      }
    }
    this.cursor = through;
    return true;
  }

  failed(error: unknown): void {
    this.deps.log.error({ err: error }, "reading events for push failed");
  }

  /**
   * Whose devices an event's pushes go to (docs/people.md "Push"): the people named by its audience, else the people
   * who may write its chat (they answer its approvals and wait for its replies), else (no chat) everyone.
   */
  private peopleOf(sessionId: string | null, audience: string | null): ReadonlySet<string> | undefined {
    if (audience !== null) return new Set(JSON.parse(audience) as string[]);
    if (sessionId === null) return undefined;
    return new Set(this.deps.chatWriters(sessionId));
  }

  private fanOut(intent: PushIntent, people: ReadonlySet<string> | undefined): void {
    const { subscriptions, previews } = (this.cached ??= {
      subscriptions: this.subscriptions.all(),
      previews: this.subscriptions.previewDevices(),
    });
    // Who has a live connection is what the bridge last said; without a bridge link nobody knows, and the service
    // worker is asked to skip the notification when a window of the app is focused instead.
    const connected = intent.audience === "offline" ? this.deps.pairing.connectedDevices() : undefined;
    const topic = intent.coalesce ? topicOf(intent.tag) : undefined;
    const unknown = intent.audience === "offline" && connected === undefined;
    const textOf = (payload: PushPayload) => JSON.stringify(unknown ? { ...payload, skip_if_focused: true } : payload);
    const plain = textOf(intent.plain);
    let preview: string | undefined;
    for (const subscription of subscriptions) {
      if (connected?.has(subscription.device_id)) continue;
      if (people !== undefined && !people.has(subscription.person_id ?? "")) continue;
      const payload = previews.has(subscription.device_id) ? (preview ??= textOf(intent.preview())) : plain;
      this.queue.enqueue({
        subscription,
        tag: intent.tag,
        payload,
        urgency: intent.urgency,
        ttlSeconds: intent.ttlSeconds,
        coalesce: intent.coalesce,
        ...(topic ? { topic } : {}),
      });
    }
  }

  async close(): Promise<void> {
    this.unfollow();
    await this.sender.close();
  }
}
