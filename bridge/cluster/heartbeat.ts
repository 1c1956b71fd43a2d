// A node's heartbeat (docs/bridge.md "Cluster"): every `cluster.heartbeatMs` it renews this node's link claims,
// notices links whose claims lapsed on a node that died, refreshes the cluster figures and watches the cluster's
// epoch, so a Redis restarted empty is noticed and this node's registry written back. Claims and presence are Redis
// expiries on wall time, so the beat runs on `systemClock`.
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { BRIDGE_CLOSE } from "../../client/wire/frames.ts";
import { every, systemClock, type Clock } from "../clock.ts";
import type { BridgeConfig } from "../config.ts";
import type { BridgeLogger } from "../log.ts";
import type { Registry } from "../state/registry.ts";
import type { StatusPushes } from "../state/status-pushes.ts";
import type { ClusterFigures } from "./figures.ts";
import type { ClusterKeys, NodeRedis } from "./keys.ts";
import type { LinkOwnership } from "./links.ts";
import type { RedisRegistryStore } from "./registry-store.ts";

/** What a heartbeat is built from: the node's links, registry and figures it keeps up, and the epoch it last saw. */
export interface HeartbeatOptions extends NodeRedis {
  cluster: BridgeConfig["cluster"];
  registry: Registry;
  store: RedisRegistryStore;
  links: LinkOwnership;
  figures: ClusterFigures;
  parts: { clock: Clock; log: BridgeLogger; statuses: StatusPushes };
  /** The cluster's epoch as this node last learned it. */
  epoch: string | undefined;
  failed: (what: string, error: unknown) => void;
}

export class Heartbeat {
  private readonly stopped = new AbortController();
  private epochSeen: string | undefined;

  constructor(private readonly options: HeartbeatOptions) {
    this.epochSeen = options.epoch;
  }

  get epoch(): string | undefined {
    return this.epochSeen;
  }

  /** Starts beating; after a reconnect, the epoch tells whether Redis kept its data. */
  start(): void {
    this.options.redis.on(
      "ready",
      () => void this.checkEpoch().catch((error: unknown) => this.options.failed("epoch check", error)),
    );
    every(systemClock, this.options.cluster.heartbeatMs, () => void this.beat(), this.stopped.signal);
    void this.beat();
  }

  stop(): void {
    this.stopped.abort();
  }

  /** Renews this node's links and presence, refreshes the cluster figures, checks the epoch. */
  private async beat(): Promise<void> {
    if (this.stopped.signal.aborted) return;
    try {
      await this.checkEpoch();
      const linked = [...this.options.registry.states()].filter((state) => state.liveLink);
      const claimed = await Promise.all(linked.map((state) => this.options.links.claim(state.id)));
      linked.forEach((state, i) => {
        if (claimed[i] || !state.link) return;
        // Another node holds it now (this node was cut off longer than the TTL): this link must go.
        this.options.parts.log.warn(
          {
            server_id: state.id,
            node: this.options.nodeId,
          },
          "server link taken over by another node; closing it here",
        );
        state.link.close(BRIDGE_CLOSE.restart, "link moved to another node");
      });
      await this.noticeLapsedLinks();
      await this.options.figures.refresh(
        this.options.redis,
        this.options.keys,
        this.options.nodeId,
        this.options.cluster.linkTtlMs,
        systemClock.now(),
      );
    } catch (error) {
      this.options.failed("heartbeat", error);
    }
  }

  /**
   * A node killed says nothing: its links' claims lapse. Every server this node's apps hear as online through another
   * node is checked; a claim nobody holds any more is pushed to them as offline.
   */
  private async noticeLapsedLinks(): Promise<void> {
    const heard = [...this.options.registry.states()].filter(
      (state) => !state.liveLink && state.topic.size > 0 && this.options.parts.statuses.statusOf(state).online,
    );
    const owners = await Promise.all(heard.map((state) => this.options.links.owner(state.id)));
    heard.forEach((state, i) => {
      if (owners[i] === undefined && !state.liveLink)
        this.options.parts.statuses.changed(state, { online: false, since: this.options.parts.clock.now() });
    });
  }

  /** Learns the cluster's epoch; a changed or missing one means Redis lost its data: write this node's view back. */
  private async checkEpoch(): Promise<void> {
    const current = await learnEpoch(this.options.redis, this.options.keys);
    if (current === undefined || current === this.epochSeen) return;
    const known = this.epochSeen;
    this.epochSeen = current;
    if (known === undefined) return;
    this.options.figures.epochChanges++;
    this.options.parts.log.warn(
      { node: this.options.nodeId, epoch: current },
      "cluster epoch changed: Redis lost its data; writing this node's registry back, history starts over",
    );
    for (const state of this.options.registry.states())
      await this.options.store.write(state.id, this.options.registry.record(state));
  }
}

/** The cluster's epoch, set at first use (SET NX). */
export async function learnEpoch(redis: Redis, keys: ClusterKeys): Promise<string | undefined> {
  await redis.set(keys.epoch, randomUUID(), "NX");
  return (await redis.get(keys.epoch)) ?? undefined;
}
