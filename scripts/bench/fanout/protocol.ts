// Messages between the fan-out benchmark's processes (IPC), validated like every other boundary.
import { z } from "zod";

export const wallNow = (): number => performance.timeOrigin + performance.now();

export const toReceivers = z.discriminatedUnion("type", [
  z.object({ type: z.literal("connect"), url: z.string(), topic: z.string(), tokens: z.array(z.string()), join: z.boolean() }),
  z.object({ type: z.literal("mode"), mode: z.enum(["latency", "count"]) }),
  z.object({ type: z.literal("report") }),
]);
export type ToReceivers = z.infer<typeof toReceivers>;

export const fromReceivers = z.discriminatedUnion("type", [
  z.object({ type: z.literal("connected"), sockets: z.number() }),
  z.object({ type: z.literal("report"), deliveries: z.number(), first: z.number(), last: z.number(), latencies: z.array(z.number()) }),
]);
export type FromReceivers = z.infer<typeof fromReceivers>;

export const toBridgeChild = z.discriminatedUnion("type", [
  z.object({ type: z.literal("rss") }),
  z.object({ type: z.literal("raw_broadcast"), frames: z.number(), bytes: z.number() }),
]);
export const fromBridgeChild = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), url: z.string(), rawUrl: z.string() }),
  z.object({ type: z.literal("rss"), rss: z.number() }),
  z.object({ type: z.literal("raw_done") }),
]);
