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
import type { ClusterKeys } from "./keys.ts";
import type { LinkOwnership } from "./links.ts";
import type { RedisRegistryStore } from "./registry-store.ts";

export class Heartbeat {
  private readonly stopped = new AbortController();

  constructor(
    private readonly commands: Redis,
    private readonly keys: ClusterKeys,
    private readonly nodeId: string,
    private readonly cluster: BridgeConfig["cluster"],
    private readonly registry: Registry,
    private readonly store: RedisRegistryStore,
    private readonly links: LinkOwnership,
    private readonly figures: ClusterFigures,
    private readonly parts: { clock: Clock; log: BridgeLogger; statuses: StatusPushes },
    /** The cluster's epoch as this node last learned it. */
    private epochSeen: string | undefined,
    private readonly failed: (what: string, error: unknown) => void,
  ) {}

  get epoch(): string | undefined {
    return this.epochSeen;
  }

  /** Starts beating; after a reconnect, the epoch tells whether Redis kept its data. */
  start(): void {
    this.commands.on(
      "ready",
      () => void this.checkEpoch().catch((error: unknown) => this.failed("epoch check", error)),
    );
    every(systemClock, this.cluster.heartbeatMs, () => void this.beat(), this.stopped.signal);
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
      const linked = [...this.registry.states()].filter((state) => state.liveLink);
      const claimed = await Promise.all(linked.map((state) => this.links.claim(state.id)));
      linked.forEach((state, i) => {
        if (claimed[i] || !state.link) return;
        // Another node holds it now (this node was cut off longer than the TTL): this link must go.
        this.parts.log.log("warn", "server link taken over by another node; closing it here", {
          server_id: state.id,
          node: this.nodeId,
        });
        state.link.close(BRIDGE_CLOSE.restart, "link moved to another node");
      });
      await this.noticeLapsedLinks();
      await this.figures.refresh(this.commands, this.keys, this.nodeId, this.cluster.linkTtlMs, systemClock.now());
    } catch (error) {
      this.failed("heartbeat", error);
    }
  }

  /**
   * A node killed says nothing: its links' claims lapse. Every server this node's apps hear as online through another
   * node is checked; a claim nobody holds any more is pushed to them as offline.
   */
  private async noticeLapsedLinks(): Promise<void> {
    const heard = [...this.registry.states()].filter(
      (state) => !state.liveLink && state.topic.size > 0 && this.parts.statuses.statusOf(state).online,
    );
    const owners = await Promise.all(heard.map((state) => this.links.owner(state.id)));
    heard.forEach((state, i) => {
      if (owners[i] === undefined && !state.liveLink)
        this.parts.statuses.changed(state, { online: false, since: this.parts.clock.now() });
    });
  }

  /** Learns the cluster's epoch; a changed or missing one means Redis lost its data: write this node's view back. */
  private async checkEpoch(): Promise<void> {
    const current = await learnEpoch(this.commands, this.keys);
    if (current === undefined || current === this.epochSeen) return;
    const known = this.epochSeen;
    this.epochSeen = current;
    if (known === undefined) return;
    this.figures.epochChanges++;
    this.parts.log.log(
      "warn",
      "cluster epoch changed: Redis lost its data; writing this node's registry back, history starts over",
      { node: this.nodeId, epoch: current },
    );
    for (const state of this.registry.states()) await this.store.write(state.id, this.registry.record(state));
  }
}

/** The cluster's epoch, set at first use (SET NX). */
export async function learnEpoch(redis: Redis, keys: ClusterKeys): Promise<string | undefined> {
  await redis.set(keys.epoch, randomUUID(), "NX");
  return (await redis.get(keys.epoch)) ?? undefined;
}
