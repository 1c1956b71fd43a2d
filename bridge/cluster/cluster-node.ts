// This bridge as one node of a cluster (BRIDGE_REDIS_URL set; docs/bridge.md "Cluster"): the shared state
// (state/shared-state.ts) kept in Redis. It owns the node's two Redis connections and everything shared through them:
// the registry's records (registry-store.ts), each server's history (history.ts), link ownership (links.ts),
// forwarding through the nodes' inboxes (forwarding.ts) and the cluster-wide rate limits (rate-limiter.ts).
// Subscribed channels: every server's events and link changes (fanned out to this node's sockets in the order the
// history holds them), registry changes (reloaded, closing the sockets of devices revoked elsewhere) and its inbox. A
// heartbeat (heartbeat.ts) renews the node's links and presence and watches the cluster's epoch: a Redis restarted
// empty is noticed, the registry written back from this node's view, and history builds up again from the next event.
//
// Timing: link claims, node presence and their TTLs are Redis expiries, which run on wall time whatever clock the
// bridge was given, so they use `systemClock` (the bridge's clock module, not a raw timer); the pairing and
// registration windows run on the injected clock like the single node's.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { after, systemClock, type Clock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import { deliverEvent } from "../fanout/deliver.ts";
import type { Arrival, BufferedEvent } from "../fanout/replay-buffer.ts";
import type { BridgeLogger } from "../log.ts";
import { bridgeRegistry } from "../state/bridge-registry.ts";
import type { NodeParts } from "../state/memory-state.ts";
import type { Grant, Registry, ServerState } from "../state/registry.ts";
import type {
  AnswerEvent,
  HistoryRead,
  LinkStatus,
  RegistrationRefusal,
  Relayed,
  SharedState,
  ToServerEvent,
} from "../state/shared-state.ts";
import { ClusterFigures } from "./figures.ts";
import { ClusterSightings } from "./sightings.ts";
import { Forwarding } from "./forwarding.ts";
import { Heartbeat, learnEpoch } from "./heartbeat.ts";
import { History } from "./history.ts";
import { ClusterKeys, type NodeRedis } from "./keys.ts";
import { LinkOwnership } from "./links.ts";
import { RedisRateLimiter } from "./rate-limiter.ts";
import { connectRedis, redactedUrl, redisClient } from "./redis-client.ts";
import { controlMessageSchema, RedisRegistryStore } from "./registry-store.ts";
import { decodeClusterMessage, encodeClusterLink, type ClusterMessage } from "./wire.ts";

/** What a node is built from besides its config: the parts every node of the bridge shares. */
export type ClusterNodeParts = NodeParts;

/** A node's Redis, connected, with the cluster's epoch and the registry's records read. */
interface Connected {
  nodeId: string;
  keys: ClusterKeys;
  commands: Redis;
  subscriber: Redis;
  store: RedisRegistryStore;
  epoch: string | undefined;
}

export class ClusterNode implements SharedState {
  readonly nodeId: string;
  readonly registry: Registry;
  readonly figures: ClusterFigures;

  private readonly store: RedisRegistryStore;
  private readonly history: History;
  private readonly links: LinkOwnership;
  private readonly pairingLimiter: RedisRateLimiter;
  private readonly registrationLimiter: RedisRateLimiter;
  private readonly sightings: ClusterSightings;
  private readonly keys: ClusterKeys;
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private readonly forwarding: Forwarding;
  private readonly heartbeat: Heartbeat;
  private closing = false;

  /** Connects to Redis, learns the cluster's epoch and reads the registry's records, then builds the node. */
  static async start(config: BridgeConfig, redisUrl: string, parts: ClusterNodeParts): Promise<ClusterNode> {
    const nodeId = config.cluster.nodeId ?? randomUUID();
    const keys = new ClusterKeys(config.cluster.keyPrefix);
    const commands = redisClient(redisUrl, `bridge-${nodeId}`);
    const subscriber = redisClient(redisUrl, `bridge-${nodeId}-sub`);
    const figures = new ClusterFigures();
    const failed = (what: string) => (error: unknown) => reportFailure(parts.log, figures, nodeId, what, error);
    // ioredis reports connection trouble as events; unheard, they would be printed as unhandled.
    commands.on("error", failed("redis connection"));
    subscriber.on("error", failed("redis subscriber"));
    try {
      await connectRedis(commands, redisUrl);
      await connectRedis(subscriber, redisUrl);
    } catch (error) {
      commands.disconnect();
      subscriber.disconnect();
      throw error;
    }
    const store = new RedisRegistryStore({
      redis: commands,
      keys,
      nodeId,
      failed: (what, error) => failed(what)(error),
    });
    const epoch = await learnEpoch(commands, keys);
    await store.preload();
    const node = new ClusterNode(config, { nodeId, keys, commands, subscriber, store, epoch }, figures, parts);
    await node.listen(redisUrl);
    return node;
  }

  private constructor(
    private readonly config: BridgeConfig,
    connected: Connected,
    figures: ClusterFigures,
    private readonly parts: ClusterNodeParts,
  ) {
    const { clock, log } = parts;
    this.nodeId = connected.nodeId;
    this.keys = connected.keys;
    this.commands = connected.commands;
    this.subscriber = connected.subscriber;
    this.store = connected.store;
    this.figures = figures;
    this.registry = bridgeRegistry(this.store, config, log);
    const failed = (what: string) => (error: unknown) => this.failed(what, error);
    const redis: NodeRedis = { redis: this.commands, keys: this.keys, nodeId: this.nodeId };
    this.history = new History({ ...redis, bounds: { events: config.replayEvents, bytes: config.replayBytes } });
    this.links = new LinkOwnership({ ...redis, ttlMs: config.cluster.linkTtlMs, wallClock: systemClock });
    this.forwarding = new Forwarding({
      ...redis,
      config,
      links: this.links,
      registry: this.registry,
      answers: parts.answers,
      failed: failed("inbox"),
    });
    this.pairingLimiter = new RedisRateLimiter({
      ...redis,
      clock,
      name: "pairing",
      rule: {
        perAddress: config.pairingFailuresPerAddress,
        overall: config.pairingFailuresOverall,
        windowMs: config.pairingWindowMs,
        maxAddresses: config.pairingFailingAddresses,
      },
      failed: failed("pairing limit"),
    });
    this.registrationLimiter = new RedisRateLimiter({
      ...redis,
      clock,
      name: "registration",
      rule: {
        perAddress: config.serverRegistrationsPerAddress,
        overall: Number.POSITIVE_INFINITY,
        windowMs: config.serverRegistrationWindowMs,
        maxAddresses: Number.POSITIVE_INFINITY,
      },
      failed: failed("registration limit"),
    });
    this.sightings = new ClusterSightings({
      ...redis,
      wallClock: systemClock,
      toServer: (state, event, payload) => this.toServer(state, event, payload),
      failed: failed("sightings"),
    });
    this.heartbeat = new Heartbeat({
      ...redis,
      cluster: config.cluster,
      registry: this.registry,
      store: this.store,
      links: this.links,
      figures,
      parts,
      epoch: connected.epoch,
      failed: (what, error) => this.failed(what, error),
    });
  }

  /** Subscribes to the cluster's channels and starts the heartbeat. */
  private async listen(redisUrl: string): Promise<void> {
    this.subscriber.on("message", (channel: string, text: string) => this.receive(channel, text));
    await this.subscriber.subscribe(this.keys.eventsChannel, this.keys.controlChannel, this.forwarding.inbox.channel);
    this.heartbeat.start();
    this.parts.log.info(
      {
        node: this.nodeId,
        redis: redactedUrl(redisUrl),
        epoch: this.heartbeat.epoch ?? null,
      },
      "cluster node started",
    );
  }

  pairingLimited(address: string): Promise<boolean> {
    return this.pairingLimiter.limited(address);
  }

  pairingFailed(address: string): void {
    this.pairingLimiter.record(address);
  }

  /** Trust on first use cluster-wide: HSETNX, so two nodes registering one id agree on its first credential. */
  async registerServer(
    serverId: string,
    credentialHash: string,
    address: string,
  ): Promise<RegistrationRefusal | undefined> {
    let record = await this.store.read(serverId);
    if (!record) {
      if (this.registry.registeredServers >= this.config.maxServers) return "registration_closed";
      if (await this.registrationLimiter.limited(address)) return "rate_limited";
      await this.registrationLimiter.count(address);
      await this.store.claim(serverId, credentialHash);
      record = await this.store.read(serverId);
      await this.store.announce(serverId);
    }
    if (record) this.registry.applyRecord(serverId, record);
    return undefined;
  }

  /**
   * Claims the link in Redis, then takes the shared history's epoch and last relayed id (another node may have held
   * the link), so the server resumes where the cluster left off and resends land as duplicates.
   */
  async claimLink(state: ServerState): Promise<boolean> {
    if (!(await this.links.claim(state.id))) return false;
    const meta = await this.history.meta(state.id);
    if (meta && (meta.epoch !== state.epoch || meta.lastId !== state.lastId))
      syncHistory(state, meta.epoch, meta.lastId, state.epoch !== undefined && meta.epoch !== state.epoch);
    return true;
  }

  releaseLink(state: ServerState): void {
    void this.links.release(state.id).catch((error: unknown) => this.failed("link release", error));
  }

  /** A history that does not continue starts over on every node (ordered before this link's first event). */
  resume(state: ServerState, epoch: string, cursor: string): string {
    const continues = this.registry.continues(state, epoch, cursor);
    const storeChanged = state.epoch !== undefined && state.epoch !== epoch;
    const resumeAfter = this.registry.resume(state, epoch, cursor);
    if (!continues)
      void this.history
        .reset(state.id, epoch, resumeAfter, storeChanged)
        .catch((error: unknown) => this.failed("history reset", error));
    return resumeAfter;
  }

  /** This node's link, else whether another node holds the claim (Redis), else what this node last heard. */
  async linkStatus(state: ServerState): Promise<LinkStatus> {
    const known = this.parts.statuses.statusOf(state);
    if (state.liveLink) return known;
    const owner = await this.links.owner(state.id).catch(() => undefined);
    if (owner === undefined || owner === this.nodeId)
      return known.online ? { online: false, since: this.parts.clock.now() } : known;
    return known.online ? known : { online: true, since: this.parts.clock.now() };
  }

  /** Tells this node's apps, then every other node's (one message on the events channel, in order with events). */
  linkChanged(state: ServerState, status: LinkStatus): void {
    this.parts.statuses.changed(state, status);
    void this.commands
      .publish(this.keys.eventsChannel, encodeClusterLink(this.nodeId, state.id, status.online, status.since))
      .catch((error: unknown) => this.failed("link status", error));
  }

  /** Here, or through the inbox of the node holding the link (forwarding.ts). */
  toServer(state: ServerState, event: ToServerEvent, payload: Record<string, unknown>): Promise<boolean> {
    return this.forwarding.toServer(state, event, payload);
  }

  /** A waiter here takes it, else the node that forwarded the request (forwarding.ts). */
  async answer(state: ServerState, event: AnswerEvent, payload: Record<string, unknown>): Promise<boolean> {
    if (this.parts.answers.take(event, state, payload)) return true;
    return (await this.forwarding.routeAnswer(state, event, payload)) === true;
  }

  /** Single use across nodes: of concurrent attempts with this code, on any nodes, one takes it (HDEL). */
  async takeCode(state: ServerState, codeHash: string): Promise<boolean> {
    if (!(await this.store.takeCode(state.id, codeHash))) return false;
    this.registry.dropCode(state, codeHash);
    return true;
  }

  /** A grant this node has not heard of is read from Redis first (a device that paired on another node). */
  async grantOf(serverId: string, tokenHash: string): Promise<Grant | undefined> {
    const known = this.registry.grantOf(serverId, tokenHash);
    if (known !== undefined) return known;
    await this.reload(serverId);
    return this.registry.grantOf(serverId, tokenHash);
  }

  /**
   * Fans the event out here and appends it to the shared history; the server's push is acked once it is there, so
   * it is resent if this node dies first.
   */
  relay(state: ServerState, event: BufferedEvent, after: string | undefined, deletedSession?: string): Relayed {
    const prev = state.lastId;
    const arrival = deliverEvent(this.parts, state, event, after);
    if (arrival !== "duplicate" && deletedSession !== undefined) this.forgetSession(state, deletedSession);
    return { arrival, kept: this.keep(state, event, arrival, arrival === "after_hole" ? after! : (prev ?? event.id)) };
  }

  read(state: ServerState, sinceId: string | undefined): Promise<HistoryRead> {
    return this.history.read(state.id, sinceId);
  }

  forget(state: ServerState, eventIds: readonly string[]): void {
    const doomed = new Set(eventIds);
    state.buffer.drop((event) => doomed.has(event.id));
    void this.history.forgetEvents(state.id, eventIds).catch((error: unknown) => this.failed("history forget", error));
  }

  reportSightings(state: ServerState, deviceIds: string[], connectedHere: string[]): void {
    this.sightings.report(state, deviceIds, connectedHere);
  }

  /** `{ok}`, this node's id, and whether Redis answers a PING within half a second. */
  async health(): Promise<Record<string, unknown>> {
    let cancel = () => undefined as void;
    const timeout = new Promise<boolean>((resolve) => (cancel = after(systemClock, 500, () => resolve(false))));
    const answers = await Promise.race([
      this.commands.ping().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
    cancel();
    return { ok: true, node: this.nodeId, redis: answers ? "ok" : "unreachable" };
  }

  async close(): Promise<void> {
    this.closing = true;
    this.heartbeat.stop();
    this.forwarding.close();
    const linked = [...this.registry.states()].filter((state) => state.liveLink);
    await Promise.all(linked.map((state) => this.links.release(state.id).catch(() => undefined)));
    this.subscriber.disconnect();
    await this.commands.quit().catch(() => this.commands.disconnect());
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
      .catch((error: unknown) => this.failed("history forget", error));
  }

  /** Appends an event this node's server link relayed to the shared history (and every node's fan-out). */
  private async append(state: ServerState, event: BufferedEvent, prev: string): Promise<void> {
    try {
      await this.history.append(state.id, event, prev, state.epoch ?? "");
    } catch (error) {
      // Live fan-out here went on; other nodes' subscribers see the hole on the next event and rejoin.
      this.failed("history append", error);
    }
  }

  /** An event came behind newer ones on the link here: the shared history no longer vouches for what is before. */
  private async lateArrival(state: ServerState): Promise<void> {
    if (state.lastId !== undefined)
      await this.history.cutBefore(state.id, state.lastId).catch((error: unknown) => this.failed("history cut", error));
  }

  private receive(channel: string, text: string): void {
    try {
      if (channel === this.keys.eventsChannel) this.onClusterMessage(decodeClusterMessage(text));
      else if (channel === this.keys.controlChannel) this.onControl(text);
      else if (channel === this.forwarding.inbox.channel) this.forwarding.inbox.receive(text);
    } catch (error) {
      this.failed(`message on ${channel}`, error);
    }
  }

  /** Another node's event, history reset or link change, for this node's sockets. */
  private onClusterMessage(message: ClusterMessage | undefined): void {
    if (!message || message.node === this.nodeId) return;
    const state = this.registry.get(message.serverId);
    if (!state) return;
    if (message.kind === "event") {
      this.figures.received++;
      deliverEvent(this.parts, state, message.event, message.prev);
      return;
    }
    if (message.kind === "link") {
      // A link here is the truth for this node; another node's going down says nothing of it.
      if (!state.liveLink) this.parts.statuses.changed(state, { online: message.online, since: message.since });
      return;
    }
    syncHistory(state, message.epoch, message.afterId, message.storeChanged);
  }

  private onControl(text: string): void {
    const parsed = controlMessageSchema.safeParse(parseJson(text));
    if (!parsed.success || parsed.data.node === this.nodeId) return;
    void this.reload(parsed.data.server_id);
  }

  /** Takes another node's write of a server's record into this node's view; revoked devices' sockets close here. */
  private async reload(serverId: string): Promise<void> {
    try {
      const record = await this.store.read(serverId);
      if (!record) return;
      const closed = this.registry.applyRecord(serverId, record);
      this.parts.metrics.revokedCloses += closed;
      if (closed > 0)
        this.parts.log.info(
          {
            server_id: serverId,
            sockets: closed,
            node: this.nodeId,
          },
          "revoked device sockets closed",
        );
    } catch (error) {
      this.failed("registry reload", error);
    }
  }

  private failed(what: string, error: unknown): void {
    if (this.closing) {
      this.figures.redisErrors++;
      return;
    }
    reportFailure(this.parts.log, this.figures, this.nodeId, what, error);
  }
}

function reportFailure(log: BridgeLogger, figures: ClusterFigures, nodeId: string, what: string, error: unknown): void {
  figures.redisErrors++;
  log.warn(
    {
      node: nodeId,
      what,
      error: error instanceof Error ? error.message : String(error),
    },
    "cluster: redis operation failed",
  );
}

/**
 * The link's node restarted the server's history after `afterId`: a new store sends this node's subscribers away
 * (their rejoin from the old epoch is answered `gap`), and so does a restart past events they never got.
 */
export function syncHistory(state: ServerState, epoch: string, afterId: string, storeChanged: boolean): void {
  const missed = state.lastId !== undefined && state.lastId < afterId;
  if (storeChanged) state.topic.closeAll(BRIDGE_CLOSE.restart, "server store reset");
  else if (missed) state.topic.closeAll(BRIDGE_CLOSE.restart, "events missed while the link moved");
  state.restartHistory(epoch, afterId);
}

/** Undefined for text that is not JSON: a malformed message on Redis is dropped, never thrown. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
