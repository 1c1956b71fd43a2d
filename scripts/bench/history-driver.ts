// Drives the history benchmarks' server child (history-server.ts): starts it with a data shape, times reads of it
// over real HTTP, reads its RSS, holds devices' long-polls open, stops it.
import { setMaxListeners } from "node:events";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "undici";
import { z } from "zod";
import { forkChild, nextMessage } from "./child-process.ts";
import type { HistoryShape } from "./history-shape.ts";
import { percentile } from "./stats.ts";

export const TOKEN = "bench-token";

const ready = z.object({
  type: z.literal("ready"),
  url: z.string(),
  long_id: z.string(),
  since_id: z.string(),
  server_id: z.string(),
  tokens: z.array(z.string()),
  device_ids: z.array(z.string()),
  seed_ms: z.number(),
  index_ms: z.number(),
});
const rss = z.object({ type: z.literal("rss"), rss: z.number() });

export type HistoryServer = z.infer<typeof ready> & {
  client: Client;
  rssMb: () => Promise<number>;
  stop: () => Promise<void>;
};

export async function startHistoryServer(shape: HistoryShape): Promise<HistoryServer> {
  const here = dirname(fileURLToPath(import.meta.url));
  const child = forkChild(here, "history-server.ts", { args: [TOKEN, JSON.stringify(shape)] });
  const started = (await nextMessage(
    child,
    (m) => ready.safeParse(m).data,
    (m) => m !== undefined,
  ))!;
  const client = new Client(started.url, { pipelining: 1 });
  return {
    ...started,
    client,
    rssMb: async () => {
      const answer = nextMessage(
        child,
        (m) => rss.safeParse(m).data,
        (m) => m !== undefined,
      );
      child.send({ type: "rss" });
      return Math.round((await answer)!.rss / 1e6);
    },
    stop: async () => {
      await client.close();
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "stop" });
      await exited;
    },
  };
}

/** Wall times in ms of GET `paths` (each in turn, `reads` in all after 20 unmeasured ones that warm the caches). */
export async function timeReads(client: Client, paths: readonly string[], reads: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < reads + 20; i++) {
    const took = await timeRead(client, paths[i % paths.length]!);
    if (i >= 20) samples.push(took);
  }
  return samples;
}

/**
 * Wall times in ms of GET `paths` of two servers read in turn (a read of one, then the same read of the other, which
 * goes first alternating), `reads` of each after 20 unmeasured pairs: both see the machine's load alike, however it
 * drifts (one server after the other, a loaded machine's drift between them was as large as the difference measured).
 */
export async function timeReadsPaired(
  a: { client: Client; paths: readonly string[] },
  b: { client: Client; paths: readonly string[] },
  reads: number,
): Promise<[number[], number[]]> {
  const samples: [number[], number[]] = [[], []];
  const sides = [a, b] as const;
  for (let i = 0; i < reads + 20; i++) {
    const order = i % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order) {
      const { client, paths } = sides[side]!;
      const took = await timeRead(client, paths[i % paths.length]!);
      if (i >= 20) samples[side]!.push(took);
    }
  }
  return samples;
}

async function timeRead(client: Client, path: string): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await client.request({ method: "GET", path, headers: { authorization: `Bearer ${TOKEN}` } });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Devices that are live: each holds a `GET /events` long-poll open from the newest event, as an app in HTTP mode
 * does. Answers a function that ends them (the polls are aborted, their connections closed).
 */
export function holdLongPolls(server: HistoryServer): () => Promise<void> {
  const controller = new AbortController();
  setMaxListeners(server.tokens.length + 10, controller.signal); // one listener per device's poll
  const clients = server.tokens.map((token) => {
    const client = new Client(server.url);
    const poll = async (): Promise<void> => {
      while (!controller.signal.aborted) {
        const res = await client.request({
          method: "GET",
          path: `/events?since_id=${server.since_id}&wait_ms=30000`,
          headers: { authorization: `Bearer ${token}` },
          signal: controller.signal,
        });
        await res.body.arrayBuffer();
      }
    };
    return { client, polling: poll().catch(() => undefined) };
  });
  return async () => {
    controller.abort();
    await Promise.all(clients.map(async ({ client, polling }) => (await polling, await client.close())));
  };
}

/** The first list page's path and the next four pages' (walked by their cursors). */
export async function listPaths(server: HistoryServer): Promise<string[]> {
  const paths = ["/sessions?limit=50"];
  for (let i = 0; i < 4; i++) {
    const res = await server.client.request({
      method: "GET",
      path: paths.at(-1)!,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const page = (await res.body.json()) as { next_before: string | null };
    if (page.next_before === null) break;
    paths.push(`/sessions?limit=50&before=${page.next_before}`);
  }
  return paths;
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

export const p50p99 = (name: string, samples: number[]) => ({
  [`${name}_p50_ms`]: round2(percentile(samples, 50)),
  [`${name}_p99_ms`]: round2(percentile(samples, 99)),
});
