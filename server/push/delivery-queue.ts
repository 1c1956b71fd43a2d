// Delivers pushes, one lane per subscription (docs/push.md "Delivery"). A lane sends in order, one at a time, so
// a record's "done" never overtakes the record. A queued push that may be coalesced is replaced by a newer one with
// the same tag (only the newest state of a record matters); an approval is never replaced. Lanes run side by side up
// to a global bound. 429, 5xx and network failures are retried with exponential backoff on the injected clock, a
// bounded number of times; 404/410 remove the subscription; other refusals drop the message and keep it.
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../clock.ts";
import type { StoredSubscription } from "./subscription-store.ts";
import type { SendOutcome, SendOptions } from "./sender.ts";
import type { Urgency } from "./triggers.ts";

export interface Delivery {
  subscription: StoredSubscription;
  tag: string;
  /** The payload's JSON text (encrypted by the sender). */
  payload: string;
  urgency: Urgency;
  ttlSeconds: number;
  coalesce: boolean;
  topic?: string;
}

export interface DeliveryDeps {
  send(subscription: StoredSubscription, payload: string, options: SendOptions): Promise<SendOutcome>;
  /** Why this endpoint may not be posted to now (the config's allowed hosts), or undefined. */
  refuse(endpoint: string): string | undefined;
  /** The push service says the subscription is gone. */
  gone(endpoint: string): void;
  clock: Clock;
  log: Pick<FastifyBaseLogger, "warn" | "info">;
  signal: AbortSignal;
}

export interface DeliveryLimits {
  /** Requests in flight to push services at once. */
  concurrency: number;
  /** Pushes a lane holds waiting; past it the oldest coalescible one goes (a dead lane must not grow forever). */
  maxQueued: number;
  /** Sends of one push in all (the first and its retries). */
  maxAttempts: number;
  /** The first retry's wait; each next one doubles. */
  backoffMs: number;
}

export const DEFAULT_LIMITS: DeliveryLimits = { concurrency: 32, maxQueued: 50, maxAttempts: 5, backoffMs: 1000 };

type Lane = { deviceId: string; queue: Delivery[]; running: boolean; cancelled: boolean };

export class DeliveryQueue {
  private readonly lanes = new Map<string, Lane>();
  private inFlight = 0;
  private readonly slotWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];
  /** Counts for tests and the benchmark. */
  readonly counts = { delivered: 0, gone: 0, refused: 0, retried: 0, dropped: 0 };

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly limits: DeliveryLimits = DEFAULT_LIMITS,
  ) {}

  enqueue(delivery: Delivery): void {
    if (this.deps.signal.aborted) return;
    const endpoint = delivery.subscription.endpoint;
    let lane = this.lanes.get(endpoint);
    if (!lane)
      this.lanes.set(
        endpoint,
        (lane = { deviceId: delivery.subscription.device_id, queue: [], running: false, cancelled: false }),
      );
    const older = delivery.coalesce
      ? lane.queue.findIndex((queued) => queued.coalesce && queued.tag === delivery.tag)
      : -1;
    if (older >= 0) lane.queue[older] = delivery;
    else lane.queue.push(delivery);
    if (lane.queue.length > this.limits.maxQueued) this.shed(lane);
    if (!lane.running) void this.run(endpoint, lane);
  }

  /** Forgets every push waiting for a device's subscriptions (its revocation): nothing more is sent to them. */
  dropDevice(deviceId: string): void {
    for (const [endpoint, lane] of this.lanes) {
      if (lane.deviceId !== deviceId) continue;
      lane.cancelled = true;
      lane.queue.length = 0;
      this.lanes.delete(endpoint);
    }
  }

  /** Resolves once nothing is queued or being sent. */
  idle(): Promise<void> {
    if (this.lanes.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private shed(lane: Lane): void {
    const victim = lane.queue.findIndex((queued) => queued.coalesce);
    lane.queue.splice(victim >= 0 ? victim : 0, 1);
    this.counts.dropped++;
    this.deps.log.warn({ device_id: lane.deviceId }, "push lane full: an older push was dropped");
  }

  private async run(endpoint: string, lane: Lane): Promise<void> {
    lane.running = true;
    try {
      for (
        let next = lane.queue.shift();
        next && !lane.cancelled && !this.deps.signal.aborted;
        next = lane.queue.shift()
      ) {
        await this.deliver(lane, next);
      }
    } catch (error) {
      // Only a shutdown ends a lane early (the abort rejects a send or a backoff wait).
      if (!this.deps.signal.aborted) this.deps.log.warn({ err: error }, "a push lane failed");
    } finally {
      lane.running = false;
      if (this.lanes.get(endpoint) === lane && (lane.queue.length === 0 || this.deps.signal.aborted))
        this.lanes.delete(endpoint);
      else if (lane.queue.length > 0 && !lane.cancelled) void this.run(endpoint, lane);
      if (this.lanes.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private async deliver(lane: Lane, delivery: Delivery): Promise<void> {
    const { endpoint } = delivery.subscription;
    const refusal = this.deps.refuse(endpoint);
    if (refusal) {
      this.counts.refused++;
      this.deps.log.warn({ device_id: lane.deviceId, problem: refusal }, "push endpoint no longer allowed: not sent");
      return;
    }
    const firstTry = this.deps.clock.now();
    for (let attempt = 1; ; attempt++) {
      const elapsedSeconds = Math.floor((this.deps.clock.now() - firstTry) / 1000);
      const options = {
        ttlSeconds: Math.max(0, delivery.ttlSeconds - elapsedSeconds),
        urgency: delivery.urgency,
        signal: this.deps.signal,
        ...(delivery.topic ? { topic: delivery.topic } : {}),
      };
      const outcome = await this.withSlot(() => this.deps.send(delivery.subscription, delivery.payload, options));
      if (lane.cancelled) return;
      if (outcome.kind === "delivered") return void this.counts.delivered++;
      if (outcome.kind === "gone") return this.gone(lane, endpoint, outcome.status);
      if (outcome.kind === "refused") {
        this.counts.refused++;
        return this.deps.log.warn({ device_id: lane.deviceId, status: outcome.status }, "push service refused a push");
      }
      if (attempt >= this.limits.maxAttempts) return this.giveUp(lane, attempt, outcome.status, outcome.problem);
      this.counts.retried++;
      await this.deps.clock.sleep(outcome.afterMs ?? this.limits.backoffMs * 2 ** (attempt - 1), this.deps.signal);
      // While it waited, its device may have been revoked, or a newer state of the same record queued behind it: that
      // one replaces it rather than waiting behind its retries.
      if (lane.cancelled) return;
      if (delivery.coalesce && lane.queue.some((queued) => queued.coalesce && queued.tag === delivery.tag))
        return this.giveUp(lane, attempt, outcome.status, "superseded");
    }
  }

  private giveUp(lane: Lane, attempts: number, status: number | undefined, problem: string | undefined): void {
    this.counts.dropped++;
    this.deps.log.warn({ device_id: lane.deviceId, status, problem, attempts }, "push given up");
  }

  private gone(lane: Lane, endpoint: string, status: number): void {
    this.counts.gone++;
    this.deps.log.info({ device_id: lane.deviceId, status }, "push subscription gone: removed");
    this.deps.gone(endpoint);
    lane.queue.length = 0;
  }

  private async withSlot<T>(work: () => Promise<T>): Promise<T> {
    while (this.inFlight >= this.limits.concurrency)
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    this.inFlight++;
    try {
      return await work();
    } finally {
      this.inFlight--;
      this.slotWaiters.shift()?.();
    }
  }
}
