// Export and import over listening servers and SQLite files (docs/export.md): a lossless round trip between two
// servers (images, titles, flags, forks), per-chat Markdown and JSON, idempotent imports.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Session } from "../../client/wire/index.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { listen, type Api } from "../search/support.ts";
import { comparable, upload } from "./support.ts";

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

let a: TestServer;
let b: TestServer;
let apiA: Api;
let apiB: Api;
beforeEach(async () => {
  a = await startTestServer({ server: { server_id: "alpha" } });
  b = await startTestServer({ server: { server_id: "beta" } });
  apiA = await listen(a);
  apiB = await listen(b);
});
afterEach(async () => {
  await a.close();
  await b.close();
});

async function sessionCount(server: TestServer): Promise<number> {
  return (await server.request({ method: "GET", url: "/sessions?archived=include" })).json.sessions.length;
}

/** A varied store on server A: titles, a model, metadata, an archived chat, an image, a fork. */
async function fillA(): Promise<string[]> {
  const one = (await apiA.call("POST", "/sessions", {})).json.session.id;
  await apiA.call("POST", `/sessions/${one}/messages`, {
    role: "user",
    content: "Look at this **image**",
    metadata: { lang: "en" },
  });
  const asset = a.runtime.ctx.assets.store(one, PNG, "image/png", "dot.png");
  await apiA.call("POST", `/sessions/${one}/messages`, {
    role: "user",
    content: "",
    metadata: { attachments: [{ type: "asset", asset_id: asset.asset_id }] },
  });
  await apiA.call("POST", `/sessions/${one}/messages`, {
    role: "assistant",
    content: "A single dot. ∑ 😀 `code`",
    metadata: { usage: { total_tokens: 3 } },
  });
  await apiA.call("PATCH", `/sessions/${one}`, { title: "Dots", model: "m-1" });
  // Fields messages may carry beyond role, content and metadata (a turn's versions) travel too.
  a.runtime.ctx.sessions.change(one, (s) => ({
    next: { ...s, messages: s.messages.map((m, i) => (i === 2 ? { ...m, version: 2, versions: 2 } : m)) },
    events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
    result: () => undefined,
  }));
  const two = (await apiA.call("POST", "/sessions", {})).json.session.id;
  await apiA.call("POST", `/sessions/${two}/messages`, { role: "system", content: "Be brief." });
  a.runtime.ctx.sessions.change(two, (s) => ({
    next: { ...s, archived: true, pinned: true, request_options: { reasoning_effort: "low" } } as Session,
    events: (saved) => [{ type: "session_updated", session_id: saved.id, session: saved }],
    result: () => undefined,
  }));
  const fork = (await apiA.call("POST", `/sessions/${one}/fork`, {})).json.session.id;
  await apiA.call("POST", `/sessions/${fork}/messages`, { role: "user", content: "and in the fork?" });
  return [one, two, fork];
}

describe("export and import", () => {
  it("X1 round-trips every chat losslessly between two servers, images and forks included", async () => {
    await fillA();
    const exported = await apiA.call("GET", "/export");
    expect(exported.status).toBe(200);
    expect(exported.json).toHaveLength(3);
    expect(exported.json[0].assets).toEqual([
      {
        asset_id: expect.stringMatching(/^ast_/),
        media_type: "image/png",
        filename: "dot.png",
        data: PNG.toString("base64"),
      },
    ]);
    const imported = await upload(apiB.url, [exported.text]);
    expect(imported.status).toBe(200);
    expect(imported.json).toMatchObject({ imported: 3, skipped: 0 });
    const again = await apiB.call("GET", "/export");
    expect(comparable(again.json)).toEqual(comparable(exported.json));
    // The image is stored on B under a new id the message now names, and its bytes are the same.
    const dots = again.json[0].session;
    const assetId = dots.messages[1].metadata.attachments[0].asset_id;
    expect(b.runtime.ctx.assets.read(dots.id, assetId).bytes.equals(PNG)).toBe(true);
    // The fork points at its source's new session, and reads the source's image through it.
    expect(again.json[2].session.source_session_id).toBe(dots.id);
    expect(dots.messages[2]).toMatchObject({ role: "assistant", version: 2, versions: 2 });
  });

  it("X2 a chat already imported is skipped, on the importing server and back on the exporting one", async () => {
    await fillA();
    const file = (await apiA.call("GET", "/export")).text;
    await upload(apiB.url, [file]);
    const second = await upload(apiB.url, [file]);
    expect(second.json).toMatchObject({ imported: 0, skipped: 3 });
    expect(await sessionCount(b)).toBe(3);
    // B's export keeps the source ids, so A recognises its own chats in it.
    const back = await upload(apiA.url, [(await apiB.call("GET", "/export")).text]);
    expect(back.json).toMatchObject({ imported: 0, skipped: 3 });
    expect(await sessionCount(a)).toBe(3);
  });

  it("X3 one chat as JSON (importable as it is) and as Markdown; unknown chat 404, bad format 400", async () => {
    const [one] = await fillA();
    const json = await apiA.call("GET", `/sessions/${one}/export?format=json`);
    expect(json.status).toBe(200);
    expect(json.json).toHaveLength(1);
    expect(json.json[0]).toMatchObject({ format: "chat-relay.chat", version: 1, source_id: `chat-relay:alpha:${one}` });
    expect((await upload(apiB.url, [json.text])).json).toMatchObject({ imported: 1 });
    const markdown = await apiA.call("GET", `/sessions/${one}/export?format=markdown`);
    expect(markdown.status).toBe(200);
    expect(markdown.text).toContain("# Dots\n");
    expect(markdown.text).toContain(
      "## User\n\nLook at this **image**\n\n## User\n\n![dot.png](<data:image/png;base64,",
    );
    expect(markdown.text).toContain("## Assistant\n\nA single dot. ∑ 😀 `code`\n");
    expect((await apiA.call("GET", `/sessions/${one}/export`)).json[0].session.id).toBe(one);
    expect((await apiA.call("GET", "/sessions/nope/export?format=json")).json.error.code).toBe("session_not_found");
    const bad = await apiA.call("GET", `/sessions/${one}/export?format=pdf`);
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_input");
  });

  it("X4 POST /import is admin only; GET /export with a device token exports its person's chats only", async () => {
    const { ctx } = a.runtime;
    const paired = ctx.pairing.redeem(ctx.pairing.createCode().code, "phone");
    if (!paired.ok) throw new Error("pairing failed");
    const owners = await apiA.call("GET", "/export", undefined, paired.device_token);
    expect(owners.status).toBe(200);
    const member = ctx.people.create({ name: "Ana" });
    const theirs = ctx.pairing.redeem(ctx.pairing.createCode(member.id).code, "Ana's phone");
    if (!theirs.ok) throw new Error("pairing failed");
    const exported = await apiA.call("GET", "/export", undefined, theirs.device_token);
    expect([exported.status, exported.json]).toEqual([200, []]);
    expect((await upload(apiA.url, ["[]"], {}, paired.device_token)).json.error.code).toBe("forbidden");
    expect((await apiA.call("GET", "/export", undefined, null)).status).toBe(401);
    expect(await upload(apiA.url, ["[]"])).toEqual({ status: 200, json: { imported: 0, skipped: 0, chats: [] } });
  });
});
