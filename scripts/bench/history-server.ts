// The server of the history benchmarks (scripts/bench/history.ts, history-people.ts, history-app.ts) in a process of
// its own, so its RSS is its own and BENCH_CPU_PROF profiles it alone. Its data is written first by another process
// (history-seed.ts: the chats through SQL in one transaction, the search index with them), then it opens that data
// folder as a server does, checks the index needs no catching up, pairs --devices devices of the Owner, and says
// `{type: "ready", url, long_id, since_id, server_id, tokens, device_ids, seed_ms, index_ms}` (each device's id beside
// its token, so a browser can be given a device's credentials). Answers `rss` with its RSS; on `stop` it closes,
// removes its data folder and exits.
// BENCH_SEED_CACHE=<dir>: the seeded data folder of each shape is kept in <dir> and copied for later runs instead of
// seeded again (100,000 chats take minutes to seed). Empty the folder when the schema or the index's format changes.
// Usage (forked): history-server.ts <token> '{"people":1,"chats":10000,"messages":20,"long":5000,"devices":50}'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { formatEventId } from "../../client/wire/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import type { ServerContext } from "../../server/context.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { forkChild, nextMessage } from "./child-process.ts";
import { historyShape } from "./history-shape.ts";

const token = process.argv[2] ?? "bench-token";
const options = historyShape.parse(JSON.parse(process.argv[3] ?? "{}"));
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const seeded = z.object({ type: z.literal("seeded"), long_id: z.string(), seed_ms: z.number() });

/** Writes the data folder in a child of its own (history-seed.ts) and waits for it to exit. */
async function seed(dir: string): Promise<z.infer<typeof seeded>> {
  const here = dirname(fileURLToPath(import.meta.url));
  const child = forkChild(here, "history-seed.ts", { args: [dir, token, JSON.stringify(options)] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const answer = await nextMessage(
    child,
    (m) => seeded.safeParse(m).data,
    (m) => m !== undefined,
  );
  await exited;
  return answer!;
}

/** Seeds `dir`, or copies the cached data folder of this shape into it (BENCH_SEED_CACHE, seeded there first). */
async function seedOrCopy(dir: string): Promise<z.infer<typeof seeded>> {
  const cache = process.env.BENCH_SEED_CACHE;
  if (!cache) return seed(dir);
  const { people, chats, messages, long, others_messages } = options;
  const cached = join(
    cache,
    `${people}x${chats}x${messages}x${long}${others_messages === undefined ? "" : `x${others_messages}`}`,
  );
  const answerFile = join(cached, "seeded.json");
  if (!existsSync(answerFile)) {
    rmSync(cached, { recursive: true, force: true });
    mkdirSync(cached, { recursive: true });
    const answer = await seed(cached);
    writeFileSync(answerFile, JSON.stringify(answer));
  }
  cpSync(cached, dir, { recursive: true });
  return seeded.parse(JSON.parse(readFileSync(answerFile, "utf8")));
}

function pairDevices(ctx: ServerContext): Array<{ device_id: string; device_token: string }> {
  const owner = ctx.personStore.actingAdmin().id;
  return Array.from({ length: options.devices }, (_, i) => {
    const redeemed = ctx.pairing.redeem(ctx.pairing.createCode(owner).code, `Phone ${i}`);
    if (!redeemed.ok) throw new Error(redeemed.reason);
    return { device_id: redeemed.device_id, device_token: redeemed.device_token };
  });
}

const dir = tempDir("bench-history-child-");
const { long_id: longId, seed_ms: seedMs } = await seedOrCopy(dir);
// BENCH_APP_DIST: another build of the app to serve (a baseline build copied aside), else app/dist.
const appDir = process.env.BENCH_APP_DIST || undefined;
const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: token, appDir });
const start = process.hrtime.bigint();
await runtime.ctx.search.search("warmup", 1, runtime.ctx.personStore.actingAdmin().id); // catches the index up with everything stored (nothing, if seeded right)
const indexMs = ms(start);
const devices = pairDevices(runtime.ctx);
const url = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
process.send!({
  type: "ready",
  url,
  long_id: longId,
  since_id: formatEventId(runtime.ctx.events.latestId),
  server_id: runtime.ctx.serverId,
  tokens: devices.map((device) => device.device_token),
  device_ids: devices.map((device) => device.device_id),
  seed_ms: Math.round(seedMs),
  index_ms: Math.round(indexMs),
});
let stopping = false;
/** Closes the server and removes its data, once. */
function stop(): void {
  if (stopping) return;
  stopping = true;
  void runtime.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}
process.on("message", (message) => {
  const parsed = z.object({ type: z.enum(["rss", "stop"]) }).safeParse(message);
  if (!parsed.success) return;
  if (parsed.data.type === "rss") process.send!({ type: "rss", rss: process.memoryUsage().rss });
  else stop();
});
// A parent that died without its "stop" (its output piped into `head`, a crash) leaves no server behind.
process.on("disconnect", stop);
