// POST /import under hostile and broken input (docs/export.md "Import"): every refusal names the problem, a bad file
// imports nothing, the size limit holds while the body streams, and no chat is ever half imported.
import { holds } from "../support/holds.ts";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.ts";
import { listen, type Api } from "../search/support.ts";
import { upload } from "./support.ts";

const LIMIT = 64 * 1024;
let server: TestServer;
let api: Api;
beforeEach(async () => {
  server = await startTestServer({ import: { max_bytes: LIMIT } });
  api = await listen(server);
});
afterEach(() => server.close());

const record = (n: number, extra: Record<string, unknown> = {}) => ({
  format: "chat-relay.chat",
  version: 1,
  source_id: `test:${n}`,
  exported_at: "2026-01-01T00:00:00.000Z",
  session: {
    id: `s${n}`,
    agent_id: "default",
    version: 3,
    created_at: "2025-01-01T00:00:00.000Z",
    updated_at: "2025-01-02T00:00:00.000Z",
    messages: [{ role: "user", content: `hello ${n}` }],
    metadata: {},
  },
  assets: [],
  ...extra,
});

async function sessionCount(): Promise<number> {
  return (await api.call("GET", "/sessions?archived=include")).json.sessions.length;
}

it("H1 not JSON, not an array, unknown elements, broken schemas: 400 invalid_import naming the problem, nothing imported", async () => {
  const cases: Array<[string, RegExp]> = [
    ["not json at all", /not a JSON array/],
    ['{"sessions": []}', /is a JSON object; an import is a JSON array/],
    ["", /empty/],
    ["[1]", /element 0 is neither a chat-relay chat record .* nor a ChatGPT conversation/],
    ['[{"hello": "world"}]', /element 0 is neither/],
    [`[${JSON.stringify(record(1))}, {"format": "chat-relay.chat"}]`, /element 1 \(chat-relay.chat\): version: /],
    [`[${JSON.stringify(record(1, { version: 2 }))}]`, /only version 1 of chat-relay.chat is understood/],
    [`[${JSON.stringify(record(1))}, {"mapping": 5}]`, /element 1 is neither/],
    [
      `[${JSON.stringify(record(1))}, {"mapping": {"a": {"children": "x"}}}]`,
      /element 1 \(ChatGPT conversation\): mapping.a.children/,
    ],
    [`[${JSON.stringify(record(1))}, {"a": tru}]`, /element 1 is not valid JSON/],
    [`[${JSON.stringify(record(1))}`, /cut short/],
    [`[${JSON.stringify(record(1))}] trailing`, /nothing may follow the top-level array/],
    [`[${JSON.stringify(record(1))},]`, /a value is missing before '\]'/],
    ["[,]", /a value is missing before ','/],
    ["[}]", /'}' closes nothing/],
    [`${"[".repeat(20_000)}${"]".repeat(20_000)}`, /nested deeper than 64 levels/],
    [
      `[${JSON.stringify(record(1, { assets: [{ asset_id: `ast_${"0".repeat(32)}`, media_type: "image/png", data: "!!not base64" }] }))}]`,
      /assets.0.data/,
    ],
    [
      `[${JSON.stringify(record(1, { assets: [{ asset_id: `ast_${"0".repeat(32)}`, media_type: "image/png", data: Buffer.from("plain text").toString("base64") }] }))}]`,
      /element 0: assets.0: /,
    ],
    [
      `[${JSON.stringify(record(1, { session: { id: "x", messages: [{ role: "robot", content: 1 }] } }))}]`,
      /element 0 \(chat-relay.chat\): session\./,
    ],
  ];
  for (const [body, message] of cases) {
    const res = await upload(api.url, [body]);
    expect(res.status, body.slice(0, 80)).toBe(400);
    expect(res.json.error.code).toBe("invalid_import");
    expect(res.json.error.message, body.slice(0, 80)).toMatch(message);
  }
  expect(await sessionCount()).toBe(0);
});

it("H2 over import.max_bytes is 413, whether the size is declared or only found while streaming; the temp file goes", async () => {
  const big = `[${JSON.stringify(record(1, { pad: "x".repeat(LIMIT) }))}]`;
  const declared = await upload(api.url, [big], { "content-length": String(Buffer.byteLength(big)) });
  expect(declared.status).toBe(413);
  expect(declared.json.error).toMatchObject({ code: "payload_too_large", details: { max_bytes: LIMIT } });
  // Chunked, no length: 4 KiB pieces, far more than the limit in all; the server stops reading past it.
  const pieces = function* () {
    yield "[";
    for (let i = 0; i < 1000; i++) yield `${i ? "," : ""}${JSON.stringify(record(i, { pad: "y".repeat(4000) }))}`;
    yield "]";
  };
  const streamed = await upload(api.url, pieces());
  expect(streamed.status).toBe(413);
  expect(streamed.json.error.code).toBe("payload_too_large");
  expect(await sessionCount()).toBe(0);
  expect(readdirSync(join(server.dataDir, "imports"))).toEqual([]);
  // Within the limit the same server still imports.
  expect((await upload(api.url, [`[${JSON.stringify(record(7))}]`])).json).toMatchObject({ imported: 1 });
});

it("H3 a failure while storing loses only the chat being stored, whole: earlier chats stay, no half chat, no stray image", async () => {
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
  const withImage = record(2, { assets: [{ asset_id: `ast_${"1".repeat(32)}`, media_type: "image/png", data: png }] });
  const file = `[${[record(1), withImage, record(3)].map((r) => JSON.stringify(r)).join(",")}]`;
  const { sessions, db } = server.runtime.ctx;
  const create = sessions.createFromStaged.bind(sessions);
  let calls = 0;
  // The second chat's version with its messages fails after its session row and its image were written in its
  // transaction (its messages were staged before it).
  sessions.createFromStaged = ((id, fields, between, next) =>
    create(id, fields, between, ++calls === 2 ? () => failure("disk full") : next)) as typeof create;
  const res = await upload(api.url, [file]);
  expect(res.status).toBe(500);
  sessions.createFromStaged = create;
  const stored = (await api.call("GET", "/export")).json;
  expect(stored.map((r: { source_id: string }) => r.source_id)).toEqual(["test:1"]);
  expect(db.prepare("SELECT count(*) AS n FROM assets").get()).toEqual({ n: 0 });
  // Nor any of its staged messages: every message row is a live session's, every body is in some row.
  expect(
    db.prepare("SELECT count(*) AS n FROM session_messages WHERE session_id NOT IN (SELECT id FROM sessions)").get(),
  ).toEqual({ n: 0 });
  expect(
    db
      .prepare("SELECT count(*) AS n FROM message_bodies WHERE id NOT IN (SELECT message_id FROM session_messages)")
      .get(),
  ).toEqual({ n: 0 });
  expect(readdirSync(join(server.dataDir, "assets"))).toEqual([]);
  // Sent again, the first is skipped and the rest come in.
  expect((await upload(api.url, [file])).json).toMatchObject({ imported: 2, skipped: 1 });
});

function failure(message: string): never {
  throw new Error(message);
}

it("H4 one import at a time: a second while the first is still arriving is 409 import_in_progress", async () => {
  const { request } = await import("node:http");
  const first = request(`${api.url}/import`, {
    method: "POST",
    headers: { "authorization": "Bearer test-admin-token", "content-type": "application/json" },
  });
  const answer = new Promise<number>((resolve) =>
    first.on("response", (res) => (res.resume(), resolve(res.statusCode ?? 0))),
  );
  first.write(`[${JSON.stringify(record(1))}`);
  // The first upload is under way once its temporary file exists.
  const imports = join(server.dataDir, "imports");
  const started = () => existsSync(imports) && readdirSync(imports).length > 0;
  await holds(started, "the first upload started", 30_000);
  const second = await upload(api.url, ["[]"]);
  expect(second.status).toBe(409);
  expect(second.json.error.code).toBe("import_in_progress");
  first.end("]");
  expect(await answer).toBe(200);
  expect((await upload(api.url, ["[]"])).status).toBe(200);
});

it("H5 an upload a crash cut off leaves no file behind after the next start", async () => {
  const imports = join(server.dataDir, "imports");
  mkdirSync(imports, { recursive: true });
  writeFileSync(join(imports, "left-over.json"), "[");
  await server.close(true);
  server = await startTestServer({ import: { max_bytes: LIMIT } }, { dataDir: server.dataDir });
  expect(existsSync(imports)).toBe(false);
});

it("H6 each chat is held to the routes' limits: the refusal names the element, the record and the rule; nothing imported", async () => {
  await server.close();
  server = await startTestServer({ import: { max_bytes: 8 * 1024 * 1024 }, assets: { max_bytes: 1000 } });
  api = await listen(server);
  const withSession = (n: number, fields: Record<string, unknown>) => {
    const base = record(n);
    return { ...base, session: { ...base.session, ...fields } };
  };
  const message = (content: string, extra: Record<string, unknown> = {}) => ({ role: "user", content, ...extra });
  const asset = { type: "asset", asset_id: `ast_${"0".repeat(32)}` };
  const chatgpt = { title: "t".repeat(300), mapping: { a: { id: "a", children: [] } }, conversation_id: "c1" };
  const cases: Array<[unknown, RegExp]> = [
    [withSession(2, { title: "t".repeat(201) }), /element 1 \(test:2\): title: 201 characters, at most 200/],
    [withSession(2, { model: "m".repeat(201) }), /element 1 \(test:2\): model: 201 characters, at most 200/],
    [chatgpt, /element 1 \(chatgpt:c1\): title: 300 characters, at most 200/],
    [
      withSession(2, { messages: [message("x"), message("y".repeat(1024 * 1024 + 1))] }),
      /element 1 \(test:2\): messages.1.content: 1048577 characters, at most 1048576/,
    ],
    [
      withSession(2, {
        messages: [
          message("shown", {
            version: 2,
            versions: 2,
            other_versions: [{ version: 1, messages: [message("z".repeat(1024 * 1024 + 1))] }],
          }),
        ],
      }),
      /messages.0.other_versions.0.messages.0.content: 1048577 characters/,
    ],
    [
      withSession(2, { messages: [message("x", { metadata: { attachments: Array(17).fill(asset) } })] }),
      /messages.0.metadata.attachments: 17 attachments, at most 16/,
    ],
  ];
  for (const [bad, rule] of cases) {
    const res = await upload(api.url, [JSON.stringify([record(1), bad])]);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_import");
    expect(res.json.error.message).toMatch(rule);
  }
  expect(await sessionCount()).toBe(0);
  // At the limit it imports.
  const res = await upload(api.url, [JSON.stringify([withSession(2, { title: "t".repeat(200) })])]);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  expect(await sessionCount()).toBe(1);
});
