// The cluster's Redis connections (ioredis): one for commands, one in subscriber mode. ioredis reconnects on its own
// and resubscribes the subscriber's channels; commands issued while it is away wait in its queue for a short while
// (a Redis restart), then fail, and the caller logs and goes on: live fan-out never waits on Redis for long.
import { Redis } from "ioredis";
import { after, systemClock } from "../clock.ts";

/** Reconnect quickly, then at most once a second. */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1000);

export function redisClient(url: string, name: string): Redis {
  return new Redis(url, { connectionName: name, retryStrategy, maxRetriesPerRequest: 5, lazyConnect: true });
}

/** Connects, answering a clear error when Redis is not there at start (a node never starts half-way). */
export async function connectRedis(redis: Redis, url: string, timeoutMs = 5000): Promise<void> {
  const cancel = after(systemClock, timeoutMs, () => redis.disconnect());
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `BRIDGE_REDIS_URL: Redis at ${redactedUrl(url)} does not answer (${error instanceof Error ? error.message : String(error)})`,
    );
  } finally {
    cancel();
  }
}

/** The URL without its password, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable url)";
  }
}
