// A real redis-server for the cluster's tests and benchmark (Debian's, which `npm test` installs when missing):
// started on a free port in a temp dir, without persistence (`--save "" --appendonly no`), so a restart on the same
// port comes back empty, as a Redis that lost its data does.
import { retried } from "./holds.ts";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./ports.ts";

export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";

export interface TestRedis {
  url: string;
  port: number;
  /** Stops it (SIGKILL: nothing kept) and starts an empty one on the same port. */
  restart(): Promise<void>;
  /** Stops it (SIGKILL) until the next restart(): Redis unreachable. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), "bridge-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(dir, port);
  const stopChild = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    restart: async () => {
      await stopChild();
      child = await launch(dir, port);
    },
    kill: stopChild,
    stop: async () => {
      await stopChild();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function launch(dir: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore" },
  );
  const failed = new Promise<never>((_, reject) => child.once("error", reject));
  await Promise.race([waitForPing(port), failed]);
  return child;
}

/** Resolves once the server answers PING (it takes a few milliseconds to listen). */
async function waitForPing(port: number, limitMs = 10_000): Promise<void> {
  await retried(async () => {
    const probe = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    probe.on("error", () => undefined);
    try {
      await probe.connect();
      await probe.ping();
    } catch {
      throw new Error(`redis-server on port ${port} never answered PING`);
    } finally {
      probe.disconnect();
    }
  }, limitMs);
}
