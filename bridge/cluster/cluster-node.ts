// This bridge as one node of a cluster (BRIDGE_REDIS_URL set; docs/bridge.md "Cluster"): the shared state
// (state/shared-state.ts) kept in Redis. It owns the node's two Redis connections (cluster-connection.ts) and
// everything shared through them: the registry's records (registry-store.ts), each server's replay history
// (cluster-replay.ts over history.ts), link ownership (links.ts), forwarding through the nodes' inboxes
// (forwarding.ts) and the cluster-wide rate limits (cluster-limits.ts).
// Subscribed channels: every server's events and link changes (fanned out to this node's sockets in the order the
// history holds them), registry changes (reloaded, closing the sockets of devices revoked elsewhere) and its inbox. A
// heartbeat (heartbeat.ts) renews the node's links and presence and watches the cluster's epoch: a Redis restarted
// empty is noticed, the registry written back from this node's view, and history builds up again from the next event.
//
// Timing: link claims, node presence and their TTLs are Redis expiries, which run on wall time whatever clock the
// bridge was given, so they use `systemClock` (the bridge's clock module, not a raw timer); the pairing and
// registration windows run on the injected clock like the single node's.
import type { Redis } from "ioredis";
import { systemClock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import type { BufferedEvent } from "../fanout/replay-buffer.ts";
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
import { connectNode, redisAnswers, reportFailure, type Connected } from "./cluster-connection.ts";
import { clusterLimiters, type ClusterLimiters } from "./cluster-limits.ts";
import { ClusterReplay } from "./cluster-replay.ts";
import { ClusterFigures } from "./figures.ts";
import { ClusterSightings } from "./sightings.ts";
import { Forwarding } from "./forwarding.ts";
import { Heartbeat } from "./heartbeat.ts";
import type { ClusterKeys, NodeRedis } from "./keys.ts";
import { LinkOwnership } from "./links.ts";
import { redactedUrl } from "./redis-client.ts";
import { controlMessageSchema, type RedisRegistryStore } from "./registry-store.ts";
import { decodeClusterMessage, encodeClusterLink, type ClusterMessage } from "./wire.ts";

/** What a node is built from besides its config: the parts every node of the bridge shares. */
export type ClusterNodeParts = NodeParts;

export class ClusterNode implements SharedState {
  readonly nodeId: string;
  readonly registry: Registry;
  readonly figures: ClusterFigures;

  private readonly store: RedisRegistryStore;
  private readonly replay: ClusterReplay;
  private readonly links: LinkOwnership;
  private readonly limiters: ClusterLimiters;
  private readonly sightings: ClusterSightings;
  private readonly keys: ClusterKeys;
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private readonly forwarding: Forwarding;
  private readonly heartbeat: Heartbeat;
  private closing = false;

  /** Connects to Redis, learns the cluster's epoch and reads the registry's records, then builds the node. */
  static async start(config: BridgeConfig, redisUrl: string, parts: ClusterNodeParts): Promise<ClusterNode> {
    const figures = new ClusterFigures();
    const connected = await connectNode(config, redisUrl, (what, nodeId, error) =>
      reportFailure(parts.log, figures, nodeId, what, error),
    );
    const node = new ClusterNode(config, connected, figures, parts);
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
    this.replay = new ClusterReplay({
      ...redis,
      bounds: { events: config.replayEvents, bytes: config.replayBytes },
      registry: this.registry,
      parts,
      failed: (what, error) => this.failed(what, error),
    });
    this.links = new LinkOwnership({ ...redis, ttlMs: config.cluster.linkTtlMs, wallClock: systemClock });
    this.forwarding = new Forwarding({
      ...redis,
      config,
      links: this.links,
      registry: this.registry,
      answers: parts.answers,
      failed: failed("inbox"),
    });
    this.limiters = clusterLimiters({ ...redis, config, clock, failed: (what, error) => this.failed(what, error) });
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
    const facts = { node: this.nodeId, redis: redactedUrl(redisUrl), epoch: this.heartbeat.epoch ?? null };
    this.parts.log.info(facts, "cluster node started");
  }

  pairingLimited(address: string): Promise<boolean> {
    return this.limiters.pairing.limited(address);
  }

  pairingFailed(address: string): void {
    this.limiters.pairing.record(address);
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
      if (await this.limiters.registration.limited(address)) return "rate_limited";
      await this.limiters.registration.count(address);
      await this.store.claim(serverId, credentialHash);
      record = await this.store.read(serverId);
      await this.store.announce(serverId);
    }
    if (record) this.registry.applyRecord(serverId, record);
    return undefined;
  }

  /** Claims the link in Redis, then takes the shared history's place (another node may have held the link). */
  async claimLink(state: ServerState): Promise<boolean> {
    if (!(await this.links.claim(state.id))) return false;
    await this.replay.adopt(state);
    return true;
  }

  releaseLink(state: ServerState): void {
    void this.links.release(state.id).catch((error: unknown) => this.failed("link release", error));
  }

  resume(state: ServerState, epoch: string, cursor: string): string {
    return this.replay.resume(state, epoch, cursor);
  }

  /**
   * This node's link, else whether another node holds the claim (Redis). What the claim says is kept as this node's
   * status (StatusPushes.told): the heartbeat watches only servers it knows online for a lapsed claim (B181). A
   * failed read answers offline and keeps nothing.
   */
  async linkStatus(state: ServerState): Promise<LinkStatus> {
    const known = this.parts.statuses.statusOf(state);
    if (state.liveLink) return known;
    const elsewhere = await this.claimedElsewhere(state.id).catch(() => undefined);
    if (elsewhere === undefined) return known.online ? { online: false, since: this.parts.clock.now() } : known;
    if (elsewhere === known.online) return known;
    const status = { online: elsewhere, since: this.parts.clock.now() };
    this.parts.statuses.told(state, status);
    return status;
  }

  /** Whether another node holds the server's link claim. */
  private async claimedElsewhere(serverId: string): Promise<boolean> {
    const owner = await this.links.owner(serverId);
    return owner !== undefined && owner !== this.nodeId;
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

  relay(state: ServerState, event: BufferedEvent, after: string | undefined, deletedSession?: string): Relayed {
    return this.replay.relay(state, event, after, deletedSession);
  }

  read(state: ServerState, sinceId: string | undefined): Promise<HistoryRead> {
    return this.replay.read(state, sinceId);
  }

  forget(state: ServerState, eventIds: readonly string[]): void {
    this.replay.forget(state, eventIds);
  }

  reportSightings(state: ServerState, deviceIds: string[], connectedHere: string[]): void {
    this.sightings.report(state, deviceIds, connectedHere);
  }

  /** `{ok}`, this node's id, and whether Redis answers a PING within half a second. */
  async health(): Promise<Record<string, unknown>> {
    const answers = await redisAnswers(this.commands, 500);
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
    if (message.kind === "link") {
      // A link here is the truth for this node; another node's going down says nothing of it.
      if (!state.liveLink) this.parts.statuses.changed(state, { online: message.online, since: message.since });
      return;
    }
    if (message.kind === "event") this.figures.received++;
    this.replay.heard(state, message);
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
          { server_id: serverId, sockets: closed, node: this.nodeId },
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

/** Undefined for text that is not JSON: a malformed message on Redis is dropped, never thrown. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
