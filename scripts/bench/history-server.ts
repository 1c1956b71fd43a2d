// The server of the history benchmarks (scripts/bench/history.ts, history-people.ts) in a process of its own, so its
// RSS is its own and BENCH_CPU_PROF profiles it alone. Makes the data itself through the store, in big transactions:
// --people people (the first is the Owner, whom the admin token acts as), each owning --chats chats of --messages
// messages (the Owner's first chat --long messages long; every 500th chat pinned), text drawn from a fixed vocabulary
// so searches find some chats and not others. Lets the search index catch up, pairs --devices devices of the Owner,
// then says `{type: "ready", url, long_id, since_id, tokens, seed_ms, index_ms}`. Answers `rss` with its RSS;
// on `stop` it closes, removes its data folder and exits.
// Usage (forked): history-server.ts <token> '{"people":1,"chats":10000,"messages":20,"long":5000,"devices":50}'
import { rmSync } from "node:fs";
import { z } from "zod";
import type { Message } from "../../client/wire/index.ts";
import { formatEventId } from "../../client/wire/index.ts";
import { parseConfig } from "../../server/config/load.ts";
import type { ServerContext } from "../../server/context.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { VOCABULARY, seededRandom, wordOf } from "./history-words.ts";

const shape = z.object({
  people: z.number().int().min(1),
  chats: z.number().int().min(1),
  messages: z.number().int().min(0),
  long: z.number().int().min(0),
  devices: z.number().int().min(0),
});
export type HistoryShape = z.infer<typeof shape>;

const token = process.argv[2] ?? "bench-token";
const options = shape.parse(JSON.parse(process.argv[3] ?? "{}"));
const BATCH = 500;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const random = seededRandom(7);
const sentence = () => Array.from({ length: 8 }, () => wordOf(Math.floor(random() * VOCABULARY))).join(" ");

function messagesOf(count: number, chat: number): Message[] {
  return Array.from({ length: count }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: `Chat ${chat}, message ${i}: ${sentence()}. An ordinary sentence about everyday things.`,
    metadata: {},
  }));
}

/** One chat of `owner`, saved with its messages, title and pin as one version after its first. */
function storeChat(ctx: ServerContext, owner: string, chat: number, count: number): string {
  const id = ctx.sessions.create("default", undefined, owner).id;
  ctx.sessions.change(id, (session) => ({
    next: { ...session, title: `Chat ${chat}`, pinned: chat % 500 === 1, messages: messagesOf(count, chat) },
    events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
    result: () => undefined,
  }));
  return id;
}

/** Every person's chats, people interleaved (as they would be written), BATCH chats a transaction. */
function seed(ctx: ServerContext): string {
  const owners = [ctx.personStore.actingAdmin().id];
  for (let p = 1; p < options.people; p++) owners.push(ctx.personStore.create({ name: `Person ${p}` }).id);
  let longId = "";
  for (let first = 0; first < options.chats; first += BATCH) {
    ctx.transactor.run(() => {
      for (let chat = first; chat < Math.min(first + BATCH, options.chats); chat++)
        for (const owner of owners) {
          const long = chat === 0 && owner === owners[0];
          const id = storeChat(ctx, owner, chat, long ? options.long : options.messages);
          if (long) longId = id;
        }
    });
  }
  return longId;
}

function pairDevices(ctx: ServerContext): string[] {
  const owner = ctx.personStore.actingAdmin().id;
  return Array.from({ length: options.devices }, (_, i) => {
    const redeemed = ctx.pairing.redeem(ctx.pairing.createCode(owner).code, `Phone ${i}`);
    if (!redeemed.ok) throw new Error(redeemed.reason);
    return redeemed.device_token;
  });
}

const dir = tempDir("bench-history-child-");
const runtime = createRuntime({ config: parseConfig({}), dataDir: dir, adminToken: token });
let start = process.hrtime.bigint();
const longId = seed(runtime.ctx);
const seedMs = ms(start);
start = process.hrtime.bigint();
await runtime.ctx.search.search("warmup", 1); // catches the index up with everything stored
const indexMs = ms(start);
const tokens = pairDevices(runtime.ctx);
const url = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
process.send!({
  type: "ready",
  url,
  long_id: longId,
  since_id: formatEventId(runtime.ctx.events.latestId),
  tokens,
  seed_ms: Math.round(seedMs),
  index_ms: Math.round(indexMs),
});
process.on("message", (message) => {
  const parsed = z.object({ type: z.enum(["rss", "stop"]) }).safeParse(message);
  if (!parsed.success) return;
  if (parsed.data.type === "rss") {
    process.send!({ type: "rss", rss: process.memoryUsage().rss });
    return;
  }
  void runtime.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
