// The cluster's own settings (BridgeConfig.cluster): its Redis (none: the single node), where its keys live in Redis and how fast a node's absence is
// noticed. Defaults suit production; tests shrink the timings so a killed node's links free up in about a second.
import { z } from "zod";

const positive = z.number().int().min(1);

/** BRIDGE_REDIS_URL: the Redis the cluster's nodes share. */
export const redisUrlSchema = z
  .string()
  .url("must be a redis:// or rediss:// URL")
  .refine(
    (url) => /^rediss?:\/\//.test(url),
    "must be a redis:// or rediss:// URL (the Redis the cluster's nodes share)",
  );

export const clusterConfigSchema = z
  .strictObject({
    /** Set: this bridge is one node of a cluster sharing its state through this Redis (docs/bridge.md "Cluster"). */
    redisUrl: redisUrlSchema.optional(),
    /** Every key and channel the cluster uses starts with this (several clusters may share one Redis). */
    keyPrefix: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,40}$/)
      .default("bridge"),
    /** A server's link is owned by one node for this long unless renewed: a killed node's links free up after it. */
    linkTtlMs: positive.default(10_000),
    /** How often a node renews its links and its presence, and checks the cluster's epoch (at most linkTtlMs / 3). */
    heartbeatMs: positive.default(2_000),
    /** How long a node waits for another node to answer a forwarded request (pairing, an API call). */
    inboxTimeoutMs: positive.default(5_000),
    /** This node's id (default: random); it names the node's inbox and its link claims. */
    nodeId: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/)
      .optional(),
  })
  .refine(
    (cluster) => cluster.heartbeatMs * 3 <= cluster.linkTtlMs,
    "cluster.heartbeatMs must be at most a third of cluster.linkTtlMs",
  );

export type ClusterConfig = z.output<typeof clusterConfigSchema>;
