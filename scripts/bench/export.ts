// Export/import benchmark (docs/export.md, docs/benchmarks.md "Export and import"). Stores --chats chats of
// --messages messages on server A (one in ten with a small image, one in ten a fork), then over real HTTP:
// GET /export from A, POST /import of that file into an empty server B, GET /export from B. Prints one JSON line:
// the times, the file's size, and `equal` (B's export is A's once what a server assigns anew, ids, versions and
// times, is taken out). Baseline, same run: JSON.parse then JSON.stringify of the same file in process, the floor
// of any JSON round trip.
// Usage: node --import tsx scripts/bench/export.ts [--chats 1000] [--messages 20]
import { isDeepStrictEqual } from "node:util";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Client } from "undici";
import { parseConfig } from "../../server/config/load.ts";
import { createRuntime, type Runtime } from "../../server/runtime.ts";
import { comparable } from "../../test/export/support.ts";
import { tempDir } from "../../test/support/server.ts";

const { values } = parseArgs({
  options: { chats: { type: "string", default: "1000" }, messages: { type: "string", default: "20" } },
});
const CHATS = Number(values.chats);
const MESSAGES = Number(values.messages);
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
