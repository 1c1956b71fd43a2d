// Export/import benchmark (docs/export.md, docs/benchmarks.md "Export and import"). Stores --chats chats of
// --messages messages on server A (one in ten with a small image, one in ten a fork), then over real HTTP:
// GET /export from A, POST /import of that file into an empty server B, GET /export from B. Prints one JSON line:
// the times, the file's size, and `equal` (B's export is A's once what a server assigns anew, ids, versions and
// times, is taken out). Baseline, same run: JSON.parse then JSON.stringify of the same file in process, the floor
// of any JSON round trip.
//
// Then a second line, `export-chatgpt`: one ChatGPT conversation of --chatgpt messages (10,000: about 1.2 MB, with
// an edited question and a regenerated reply every 100 turns) imported into an empty server C, while two other
// connections ask GET /health and GET /search over and over: the p99 and the worst of each during the import (the
// server must keep answering: docs/export.md "Import"), beside the same p99s on the idle server just before.
// Usage: node --import tsx scripts/bench/export.ts [--chats 1000] [--messages 20] [--chatgpt 10000]
import { isDeepStrictEqual } from "node:util";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { Client } from "undici";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime, type Runtime } from "../../server/runtime.ts";
import { comparable } from "../../test/export/support.ts";
import { tempDir } from "../../test/support/server.ts";
import { benchOptions } from "./options.ts";
import { withProbedServer } from "./probed/server.ts";
import { percentile } from "./stats.ts";

const options = benchOptions({ chats: 1000, messages: 20, chatgpt: 10000 });
const { chats: CHATS, messages: MESSAGES } = options;
const TOKEN = "bench-token";
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

const ms = (start: bigint) => Math.round(Number(process.hrtime.bigint() - start) / 1e6);

async function server(): Promise<{ runtime: Runtime; client: Client; dir: string }> {
  const dir = tempDir("bench-export-");
  const runtime = createRuntime({
    config: parseConfig({ import: { max_bytes: 2 * 1024 * 1024 * 1024 } }),
    dataDir: dir,
    adminToken: TOKEN,
  });
  const url = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  return { runtime, client: new Client(url, { pipelining: 1, bodyTimeout: 0, headersTimeout: 0 }), dir };
}

function fill(runtime: Runtime): void {
  const { sessions, assets } = runtime.ctx;
  const ids: string[] = [];
  for (let c = 0; c < CHATS; c++) {
    const id = c % 10 === 9 ? sessions.fork(ids[c - 1]!).id : sessions.create().id;
    ids.push(id);
    const image = c % 10 === 3 ? assets.store(id, PNG, "image/png", `dot-${c}.png`) : undefined;
    sessions.change(id, (session) => ({
      next: {
        ...session,
        title: `Chat ${c}`,
        messages: [
          ...session.messages,
          ...Array.from({ length: MESSAGES }, (_, m) => ({
            role: m % 2 === 0 ? ("user" as const) : ("assistant" as const),
            content: `Message ${m} of chat ${c}: ${"lorem ipsum dolor sit amet ".repeat(8)}`,
            metadata:
              m === 0 && image
                ? { attachments: [{ type: "asset", asset_id: image.asset_id }] }
                : m % 2
                  ? { usage: { total_tokens: m } }
                  : {},
          })),
        ],
      },
      events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
      result: () => undefined,
    }));
  }
}

async function call(client: Client, method: "GET" | "POST", path: string, body?: string): Promise<string> {
  const res = await client.request({
    method,
    path,
    headers: { "authorization": `Bearer ${TOKEN}`, "content-type": "application/json" },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`);
  return text;
}

/** A ChatGPT conversation of `count` shown messages, alternating question and reply, branching every 100 turns. */
function chatgptConversation(count: number): Record<string, unknown> {
  const mapping: Record<string, { id: string; parent: string | null; children: string[]; message: unknown }> = {};
  const node = (id: string, parent: string | null, role: string | undefined, text: string, time: number) => {
    mapping[id] = {
      id,
      parent,
      children: [],
      message: role
        ? { id, author: { role }, create_time: time, content: { content_type: "text", parts: [text] } }
        : null,
    };
    if (parent) mapping[parent]!.children.push(id);
  };
  node("root", null, undefined, "", 0);
  let parent = "root";
  for (let n = 0; n < count; n++) {
    const role = n % 2 === 0 ? "user" : "assistant";
    const text = `${role === "user" ? "Question" : "Answer"} ${n}: lorem ipsum dolor sit amet`;
    // Every 100 turns a hidden branch: an edited question, or a regenerated reply, made before the shown one.
    if (n % 200 === 0 && n > 0) node(`edit-${n}`, parent, "user", `An earlier wording of question ${n}`, n);
    if (n % 200 === 101) node(`regen-${n}`, parent, "assistant", `An earlier answer ${n}`, n);
    node(`m${n}`, parent, role, text, n + 0.5);
    parent = `m${n}`;
  }
  return { title: "A long conversation", create_time: 1, mapping, current_node: parent, conversation_id: "bench-long" };
}

/** Asks `path` over and over on its own connection until `done`; each answer's latency in ms. */
async function probe(client: Client, path: string, done: () => boolean): Promise<number[]> {
  const samples: number[] = [];
  while (!done()) {
    const start = process.hrtime.bigint();
    await call(client, "GET", path);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return samples;
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The second line: one long ChatGPT conversation imported while /health and /search are asked all along. */
async function chatgptImport(count: number): Promise<void> {
  await withProbedServer(TOKEN, async (url) => {
    const importer = new Client(url, { pipelining: 1, bodyTimeout: 0, headersTimeout: 0 });
    const health = new Client(url, { pipelining: 1 });
    const search = new Client(url, { pipelining: 1 });
    try {
      const file = JSON.stringify([chatgptConversation(count)]);
      let idle = true;
      const idleUntil = Date.now() + 1000;
      const idleHealth = probe(health, "/health", () => Date.now() > idleUntil);
      const idleSearch = probe(search, "/search?q=question", () => Date.now() > idleUntil);
      const idleSamples = [await idleHealth, await idleSearch];
      idle = false;
      const during = [probe(health, "/health", () => idle), probe(search, "/search?q=answer", () => idle)];
      const start = process.hrtime.bigint();
      const summary = JSON.parse(await call(importer, "POST", "/import", file)) as { imported: number };
      const importMs = ms(start);
      idle = true;
      const [healthSamples, searchSamples] = await Promise.all(during);
      console.log(
        JSON.stringify({
          bench: "export-chatgpt",
          messages: count,
          file_bytes: Buffer.byteLength(file),
          imported: summary.imported,
          import_ms: importMs,
          health_p99_ms: round(percentile(healthSamples!, 99)),
          health_max_ms: round(Math.max(...healthSamples!)),
          health_samples: healthSamples!.length,
          search_p99_ms: round(percentile(searchSamples!, 99)),
          search_max_ms: round(Math.max(...searchSamples!)),
          search_samples: searchSamples!.length,
          baseline_idle_health_p99_ms: round(percentile(idleSamples[0]!, 99)),
          baseline_idle_search_p99_ms: round(percentile(idleSamples[1]!, 99)),
          load_average: Math.round(loadavg()[0]! * 100) / 100,
        }),
      );
    } finally {
      await Promise.all([importer.close(), health.close(), search.close()]);
    }
  });
}

const a = await server();
const b = await server();
try {
  fill(a.runtime);
  let start = process.hrtime.bigint();
  const file = await call(a.client, "GET", "/export");
  const exportMs = ms(start);
  start = process.hrtime.bigint();
  const summary = JSON.parse(await call(b.client, "POST", "/import", file)) as { imported: number; skipped: number };
  const importMs = ms(start);
  start = process.hrtime.bigint();
  const again = await call(b.client, "GET", "/export");
  const reexportMs = ms(start);
  start = process.hrtime.bigint();
  JSON.stringify(JSON.parse(file));
  const baselineMs = ms(start);
  const equal = isDeepStrictEqual(comparable(JSON.parse(again)), comparable(JSON.parse(file)));
  console.log(
    JSON.stringify({
      bench: "export",
      chats: CHATS,
      messages_per_chat: MESSAGES,
      file_bytes: Buffer.byteLength(file),
      export_ms: exportMs,
      import_ms: importMs,
      reexport_ms: reexportMs,
      imported: summary.imported,
      skipped: summary.skipped,
      equal,
      baseline_json_roundtrip_ms: baselineMs,
      load_average: Math.round(loadavg()[0]! * 100) / 100,
    }),
  );
} finally {
  for (const s of [a, b]) {
    await s.client.close();
    await s.runtime.close();
    rmSync(s.dir, { recursive: true, force: true });
  }
}
if (options.chatgpt > 0) await chatgptImport(options.chatgpt);
