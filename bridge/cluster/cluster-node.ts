// This bridge as one node of a cluster (BRIDGE_REDIS_URL set; docs/bridge.md "Cluster"). It owns the node's two
// Redis connections and everything shared through them: the registry's records (registry-store.ts), each server's
// history (history.ts), link ownership (links.ts), the node's inbox (inbox.ts) and the cluster-wide rate limits
// (rate-limiter.ts). Subscribed channels: every server's events (fanned out to this node's sockets in the order the
// history holds them), registry changes (reloaded, closing the sockets of devices revoked elsewhere) and its inbox.
// A heartbeat renews the node's links and presence and watches the cluster's epoch: a Redis restarted empty is
// noticed, the registry written back from this node's view, and history builds up again from the next event.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import type { Clock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import { deliverEvent } from "../fanout/deliver.ts";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";
import type { BridgeLogger } from "../log.ts";
import type { BridgeMetrics } from "../metrics.ts";
import type { Registry, ServerState } from "../state/registry.ts";
import { ClusterFigures } from "./figures.ts";
import { ClusterSightings } from "./sightings.ts";
import { History, type HistoryRead } from "./history.ts";
import { Inbox } from "./inbox.ts";
import { ClusterKeys } from "./keys.ts";
import { LinkOwnership } from "./links.ts";
import { RedisRateLimiter } from "./rate-limiter.ts";
import { connectRedis, redactedUrl, redisClient } from "./redis-client.ts";
import { controlMessageSchema, RedisRegistryStore } from "./registry-store.ts";
import { inboxRequestSchema, type AnswerEvent, type InboxRequest } from "./requests.ts";
import { decodeClusterMessage, type ClusterMessage } from "./wire.ts";

/** Answers a server gave on this node to a request another node forwarded: handed to that node's waiter. */
export type AnswerHandler = (state: ServerState, payload: Record<string, unknown>) => boolean;

export class ClusterNode {
  readonly nodeId: string;
  readonly store: RedisRegistryStore;
  readonly history: History;
  readonly links: LinkOwnership;
  readonly pairingLimiter: RedisRateLimiter;
  readonly registrationLimiter: RedisRateLimiter;
  readonly figures = new ClusterFigures();
  readonly sightings: ClusterSightings;
  /** Set by the router: who takes a forwarded request's answer here. */
  readonly answerHandlers: Partial<Record<AnswerEvent, AnswerHandler>> = {};

  private readonly keys: ClusterKeys;
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private readonly inbox: Inbox;
  /** request id → the node that forwarded it, for the server's answer given here. */
  private readonly answerRoutes = new Map<string, { node: string; timer: NodeJS.Timeout }>();
  private epoch: string | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private registry: Registry | undefined;
  private closing = false;

  constructor(
    private readonly config: BridgeConfig,
    private readonly redisUrl: string,
    clock: Clock,
    private readonly log: BridgeLogger,
    private readonly metrics: BridgeMetrics,
  ) {
    const cluster = config.cluster;
    this.nodeId = cluster.nodeId ?? randomUUID();
    this.keys = new ClusterKeys(cluster.keyPrefix);
    this.commands = redisClient(redisUrl, `bridge-${this.nodeId}`);
    this.subscriber = redisClient(redisUrl, `bridge-${this.nodeId}-sub`);
    // ioredis reports connection trouble as events; unheard, they would be printed as unhandled.
    this.commands.on("error", (error: Error) => this.failed("redis connection", error));
    this.subscriber.on("error", (error: Error) => this.failed("redis subscriber", error));
    const failed = (what: string) => (error: unknown) => this.failed(what, error);
    this.store = new RedisRegistryStore(this.commands, this.keys, this.nodeId, (what, error) => this.failed(what, error));
    this.history = new History(this.commands, this.keys, this.nodeId, { events: config.replayEvents, bytes: config.replayBytes });
    this.links = new LinkOwnership(this.commands, this.keys, this.nodeId, cluster.linkTtlMs);
    this.inbox = new Inbox(this.commands, this.keys, this.nodeId, cluster.inboxTimeoutMs, (request, from) => this.handleRequest(request, from), failed("inbox"));
    const pairingRule = { perAddress: config.pairingFailuresPerAddress, overall: config.pairingFailuresOverall, windowMs: config.pairingWindowMs, maxAddresses: config.pairingFailingAddresses };
    this.pairingLimiter = new RedisRateLimiter(this.commands, this.keys, clock, "pairing", pairingRule, failed("pairing limit"));
    const registrationRule = { perAddress: config.serverRegistrationsPerAddress, overall: Number.POSITIVE_INFINITY, windowMs: config.serverRegistrationWindowMs, maxAddresses: Number.POSITIVE_INFINITY };
    this.sightings = new ClusterSightings(this.commands, this.keys, this.nodeId, (state, event, payload) => this.toServer(state, event, payload), failed("sightings"));
    this.registrationLimiter = new RedisRateLimiter(this.commands, this.keys, clock, "registration", registrationRule, failed("registration limit"));
  }

  /** Connects, learns the cluster's epoch and loads the registry's records (before the registry is built). */
  async start(): Promise<void> {
    try {
      await connectRedis(this.commands, this.redisUrl);
      await connectRedis(this.subscriber, this.redisUrl);
    } catch (error) {
      this.closing = true;
      this.commands.disconnect();
      this.subscriber.disconnect();
      throw error;
    }
    await this.checkEpoch();
    await this.store.preload();
    this.subscriber.on("message", (channel: string, text: string) => this.receive(channel, text));
    await this.subscriber.subscribe(this.keys.eventsChannel, this.keys.controlChannel, this.inbox.channel);
    // After a reconnect, the epoch tells whether Redis kept its data.
    this.commands.on("ready", () => void this.checkEpoch().catch((error: unknown) => this.failed("epoch check", error)));
    this.log.log("info", "cluster node started", { node: this.nodeId, redis: redactedUrl(this.redisUrl), epoch: this.epoch ?? null });
  }

  /** Binds the registry this node serves and starts the heartbeat. */
  bind(registry: Registry): void {
    this.registry = registry;
    this.heartbeat = setInterval(() => void this.beat(), this.config.cluster.heartbeatMs);
    this.heartbeat.unref();
    void this.beat();
  }

  /** Appends an event this node's server link relayed to the shared history (and every node's fan-out). */
  async append(state: ServerState, event: BufferedEvent, prev: string): Promise<void> {
    try {
      await this.history.append(state.id, event, prev, state.epoch ?? "");
    } catch (error) {
      // Live fan-out here went on; other nodes' subscribers see the hole on the next event and rejoin.
      this.failed("history append", error);
    }
  }

  /**
   * Before a link starts here: take the shared history's epoch and last relayed id (another node may have held the
   * link), so the server resumes where the cluster left off and resends land as duplicates.
   */
  async adoptHistory(state: ServerState): Promise<void> {
    const meta = await this.history.meta(state.id);
    if (meta && (meta.epoch !== state.epoch || meta.lastId !== state.lastId)) syncHistory(state, meta.epoch, meta.lastId, state.epoch !== undefined && meta.epoch !== state.epoch);
  }

  /** The link here restarted the server's history (a new store, or a cursor past what the cluster relayed). */
  async resetHistory(state: ServerState, epoch: string, afterId: string, storeChanged: boolean): Promise<void> {
    await this.history.reset(state.id, epoch, afterId, storeChanged).catch((error: unknown) => this.failed("history reset", error));
  }

  /** An event came behind newer ones on the link here: the shared history no longer vouches for what is before. */
  async lateArrival(state: ServerState): Promise<void> {
    if (state.lastId !== undefined) await this.history.cutBefore(state.id, state.lastId).catch((error: unknown) => this.failed("history cut", error));
  }

  /** The link here ended: another node may take it at once. */
  unlinked(state: ServerState): void {
    void this.links.release(state.id).catch((error: unknown) => this.failed("link release", error));
  }

  /** A cluster join's replay: read from the shared history; undefined events for a gap. */
  read(serverId: string, sinceId: string | undefined): Promise<HistoryRead> {
    return this.history.read(serverId, sinceId);
  }

  /**
   * Sends a frame to the server's link wherever it is: here, or through the inbox of the node holding it. False when
   * no node holds it. A `request_id` in the payload routes the server's answer back to this node.
   */
  async toServer(state: ServerState, event: "pair_request" | "api_request" | "devices_seen", payload: Record<string, unknown>): Promise<boolean> {
    if (state.link && !state.link.connection.closed) return sendToLink(state, event, payload);
    const owner = await this.links.owner(state.id).catch(() => undefined);
    if (owner === undefined || owner === this.nodeId) return false;
    const reply = await this.inbox.call(owner, { kind: "to_server", server_id: state.id, event, payload } satisfies InboxRequest);
    return (reply as { delivered?: boolean } | undefined)?.delivered === true;
  }

  /**
   * The server answered (pair_result, api_result) a request another node forwarded here: hands it to that node.
   * Undefined when the request was not forwarded (it is this node's own); else whether its waiter took it.
   */
  async routeAnswer(state: ServerState, event: AnswerEvent, payload: Record<string, unknown>): Promise<boolean | undefined> {
    const requestId = typeof payload.request_id === "string" ? payload.request_id : undefined;
    const route = requestId === undefined ? undefined : this.answerRoutes.get(requestId);
    if (!route) return undefined;
    clearTimeout(route.timer);
    this.answerRoutes.delete(requestId!);
    const reply = await this.inbox.call(route.node, { kind: "answer", server_id: state.id, event, payload } satisfies InboxRequest);
    return (reply as { taken?: boolean } | undefined)?.taken === true;
  }

  /** Whether Redis answers a PING within half a second (GET /health). */
  async redisAnswers(): Promise<boolean> {
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 500).unref());
    return Promise.race([this.commands.ping().then(() => true, () => false), timeout]);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    this.inbox.close();
    for (const route of this.answerRoutes.values()) clearTimeout(route.timer);
    const linked = [...(this.registry?.states() ?? [])].filter((state) => state.link && !state.link.connection.closed);
    await Promise.all(linked.map((state) => this.links.release(state.id).catch(() => undefined)));
    this.subscriber.disconnect();
    await this.commands.quit().catch(() => this.commands.disconnect());
  }

  private receive(channel: string, text: string): void {
    try {
      if (channel === this.keys.eventsChannel) this.onClusterMessage(decodeClusterMessage(text));
      else if (channel === this.keys.controlChannel) this.onControl(text);
      else if (channel === this.inbox.channel) this.inbox.receive(text);
    } catch (error) {
      this.failed(`message on ${channel}`, error);
    }
  }

  /** Another node's event or history reset, for this node's sockets. */
  private onClusterMessage(message: ClusterMessage | undefined): void {
    if (!message || message.node === this.nodeId) return;
    const state = this.registry?.get(message.serverId);
    if (!state) return;
    if (message.kind === "event") {
      this.figures.received++;
      deliverEvent({ log: this.log, metrics: this.metrics }, state, message.event, message.prev);
      return;
    }
    syncHistory(state, message.epoch, message.afterId, message.storeChanged);
  }

  private onControl(text: string): void {
    const parsed = controlMessageSchema.safeParse(parseJson(text));
    if (!parsed.success || parsed.data.node === this.nodeId) return;
    void this.reload(parsed.data.server_id);
  }

  /** Reads a server's record from Redis now (a join by a device this node has not heard of yet). */
  refresh(serverId: string): Promise<void> {
    return this.reload(serverId);
  }

  /** Takes another node's write of a server's record into this node's view; revoked devices' sockets close here. */
  private async reload(serverId: string): Promise<void> {
    try {
      const record = await this.store.read(serverId);
      if (!record || !this.registry) return;
      const closed = this.registry.applyRecord(serverId, record);
      this.metrics.revokedCloses += closed;
      if (closed > 0) this.log.log("info", "revoked device sockets closed", { server_id: serverId, sockets: closed, node: this.nodeId });
    } catch (error) {
      this.failed("registry reload", error);
    }
  }

  private async handleRequest(request: unknown, from: string): Promise<unknown> {
    const parsed = inboxRequestSchema.safeParse(request);
    if (!parsed.success) return { error: "invalid_request" };
    const state = this.registry?.get(parsed.data.server_id);
    if (parsed.data.kind === "to_server") {
      if (!state?.link || state.link.connection.closed) return { delivered: false };
      const requestId = parsed.data.payload.request_id;
      if (typeof requestId === "string") this.rememberRoute(requestId, from);
      return { delivered: sendToLink(state, parsed.data.event, parsed.data.payload) };
    }
    const handler = this.answerHandlers[parsed.data.event];
    return { taken: state !== undefined && handler !== undefined && handler(state, parsed.data.payload) };
  }

  /** Remembers who forwarded a request, as long as its answer may come (the longest of the waits). */
  private rememberRoute(requestId: string, node: string): void {
    const ttl = Math.max(this.config.pairingTimeoutMs, this.config.relay.timeoutMs ?? 30_000) + this.config.cluster.inboxTimeoutMs;
    const timer = setTimeout(() => this.answerRoutes.delete(requestId), ttl);
    timer.unref();
    this.answerRoutes.set(requestId, { node, timer });
  }

  /** Renews this node's links and presence, refreshes the cluster figures, checks the epoch. */
  private async beat(): Promise<void> {
    if (this.closing || !this.registry) return;
    try {
      await this.checkEpoch();
      const linked = [...this.registry.states()].filter((state) => state.link && !state.link.connection.closed);
      const claimed = await Promise.all(linked.map((state) => this.links.claim(state.id)));
      linked.forEach((state, i) => {
        if (claimed[i] || !state.link) return;
        // Another node holds it now (this node was cut off longer than the TTL): this link must go.
        this.log.log("warn", "server link taken over by another node; closing it here", { server_id: state.id, node: this.nodeId });
        state.link.connection.close(BRIDGE_CLOSE.restart, "link moved to another node");
      });
      await this.figures.refresh(this.commands, this.keys, this.nodeId, this.config.cluster.linkTtlMs);
    } catch (error) {
      this.failed("heartbeat", error);
    }
  }

  /** Learns the cluster's epoch; a changed or missing one means Redis lost its data: write this node's view back. */
  private async checkEpoch(): Promise<void> {
    await this.commands.set(this.keys.epoch, randomUUID(), "NX");
    const current = await this.commands.get(this.keys.epoch);
    if (current === null || current === this.epoch) return;
    const known = this.epoch;
    this.epoch = current;
    if (known === undefined || !this.registry) return;
    this.figures.epochChanges++;
    this.log.log("warn", "cluster epoch changed: Redis lost its data; writing this node's registry back, history starts over", { node: this.nodeId, epoch: current });
    for (const state of this.registry.states()) await this.store.write(state.id, this.registry.record(state));
  }

  private failed(what: string, error: unknown): void {
    this.figures.redisErrors++;
    if (this.closing) return;
    this.log.log("warn", "cluster: redis operation failed", { node: this.nodeId, what, error: error instanceof Error ? error.message : String(error) });
  }
}

function sendToLink(state: ServerState, event: string, payload: Record<string, unknown>): boolean {
  const link = state.link;
  if (!link || link.connection.closed) return false;
  link.connection.send({ joinRef: link.joinRef, ref: null, topic: `server:${state.id}`, event, payload });
  return true;
}

/**
 * The link's node restarted the server's history after `afterId`: a new store sends this node's subscribers away
 * (their rejoin from the old epoch is answered `gap`), and so does a restart past events they never got.
 */
export function syncHistory(state: ServerState, epoch: string, afterId: string, storeChanged: boolean): void {
  const missed = state.lastId !== undefined && state.lastId < afterId;
  if (storeChanged) state.topic.closeAll(BRIDGE_CLOSE.restart, "server store reset");
  else if (missed) state.topic.closeAll(BRIDGE_CLOSE.restart, "events missed while the link moved");
  state.epoch = epoch;
  state.lastId = afterId;
  state.buffer.reset(afterId);
}

/** Undefined for text that is not JSON: a malformed message on Redis is dropped, never thrown. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
