// The attachments extension over HTTP: store (base64 JSON and raw upload), download, delete; sniffing, size
// limit, ownership and forks; and asset attachments inlined into the provider request at send time.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dialectStream, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import {
  completionBodies,
  createSession,
  send,
  startRunnerServer,
  waitForEvent,
  type RunnerServer,
} from "../runner/helpers.ts";

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 3)]);
const GIF = Buffer.concat([Buffer.from("GIF89a"), Buffer.alloc(16, 1)]);
const WEBP = Buffer.concat([Buffer.from("RIFF"), Buffer.from([0, 0, 0, 0]), Buffer.from("WEBPVP8 "), Buffer.alloc(16)]);
const MAX = 1024;

let backend: ScriptedBackend;
let server: RunnerServer;
beforeEach(async () => {
  backend = await startScriptedBackend();
  server = await startRunnerServer(backend, { assets: { max_bytes: MAX } });
});
afterEach(async () => {
  await server.close();
  await backend.close();
});

const ext = (sid: string, action: string) => `/sessions/${sid}/extensions/reference_compatible_attachments/${action}`;
const storeJson = (sid: string, bytes: Buffer, extra: Record<string, unknown> = {}) =>
  server.request({
    method: "POST",
    url: ext(sid, "store_attachment"),
    payload: { data_base64: bytes.toString("base64"), ...extra },
  });
const download = (sid: string, asset_id: string) =>
  server.runtime.app.inject({
    method: "POST",
    url: ext(sid, "download_attachment"),
    payload: { asset_id },
    headers: { authorization: "Bearer test-admin-token" },
  });

describe("store, download, delete", () => {
  it("stores each image type from base64 JSON, sniffing the type from the bytes", async () => {
    const sid = await createSession(server);
    for (const [bytes, type] of [
      [PNG, "image/png"],
      [JPEG, "image/jpeg"],
      [GIF, "image/gif"],
      [WEBP, "image/webp"],
    ] as const) {
      const res = await storeJson(sid, bytes);
      expect(res.status).toBe(201);
      expect(res.json).toEqual({ asset_id: expect.stringMatching(/^ast_/), media_type: type, size: bytes.length });
      const got = await download(sid, res.json.asset_id);
      expect(got.statusCode).toBe(200);
      expect(got.headers["content-type"]).toBe(type);
      expect(Buffer.from(got.rawPayload).equals(bytes)).toBe(true);
    }
  });

  it("stores a raw upload (content-type image/*) with a filename", async () => {
    const sid = await createSession(server);
    const res = await server.request({
      method: "POST",
      url: `${ext(sid, "store_attachment")}?filename=cat.png`,
      payload: PNG,
      headers: { "content-type": "image/png" },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ media_type: "image/png", size: PNG.length, filename: "cat.png" });
  });

  it("deletes: the bytes and the row are gone; a second delete is 404", async () => {
    const sid = await createSession(server);
    const { asset_id } = (await storeJson(sid, PNG)).json;
    const del = await server.request({ method: "POST", url: ext(sid, "delete_attachment"), payload: { asset_id } });
    expect([del.status, del.json]).toEqual([200, { deleted: true, asset_id }]);
    expect((await download(sid, asset_id)).statusCode).toBe(404);
    expect(
      (await server.request({ method: "POST", url: ext(sid, "delete_attachment"), payload: { asset_id } })).json.error
        .code,
    ).toBe("asset_not_found");
  });

  it("a fork reads its source's assets but cannot delete them; another session gets 404", async () => {
    const sid = await createSession(server);
    const { asset_id } = (await storeJson(sid, PNG)).json;
    const fork = (await server.request({ method: "POST", url: `/sessions/${sid}/fork`, payload: {} })).json.session
      .id as string;
    const stranger = await createSession(server);
    expect((await download(fork, asset_id)).statusCode).toBe(200);
    const del = await server.request({ method: "POST", url: ext(fork, "delete_attachment"), payload: { asset_id } });
    expect([del.status, del.json.error.code]).toEqual([403, "asset_not_owned"]);
    const res = await download(stranger, asset_id);
    expect([res.statusCode, res.json().error.code]).toEqual([404, "asset_not_found"]);
  });
});

describe("bad input", () => {
  it.each([
    [
      "bytes that are no image",
      () => storeJson("SID", Buffer.from("hello, not an image")),
      415,
      "unsupported_media_type",
    ],
    [
      "a declared type the bytes contradict",
      () => storeJson("SID", PNG, { media_type: "image/jpeg" }),
      400,
      "media_type_mismatch",
    ],
    [
      "an image over assets.max_bytes",
      () => storeJson("SID", Buffer.concat([PNG, Buffer.alloc(MAX)])),
      413,
      "attachment_too_large",
    ],
    [
      "a raw body over the limit",
      () =>
        server.request({
          method: "POST",
          url: ext("SID", "store_attachment"),
          payload: Buffer.concat([PNG, Buffer.alloc(MAX)]),
          headers: { "content-type": "image/png" },
        }),
      413,
      "attachment_too_large",
    ],
    [
      "a raw body of a non-image type",
      () =>
        server.request({
          method: "POST",
          url: ext("SID", "store_attachment"),
          payload: "x",
          headers: { "content-type": "text/plain" },
        }),
      415,
      "unsupported_media_type",
    ],
    [
      "an unknown action",
      () => server.request({ method: "POST", url: ext("SID", "rename_attachment"), payload: {} }),
      404,
      "unknown_action",
    ],
    [
      "an asset id that is no asset id",
      () =>
        server.request({
          method: "POST",
          url: ext("SID", "download_attachment"),
          payload: { asset_id: "../../server.sqlite" },
        }),
      404,
      "asset_not_found",
    ],
    [
      "a missing asset_id",
      () => server.request({ method: "POST", url: ext("SID", "download_attachment"), payload: {} }),
      400,
      "invalid_input",
    ],
    ["an unknown session", () => storeJson("no-such-session", PNG), 404, "session_not_found"],
  ])("%s", async (_name, call, status, code) => {
    const sid = await createSession(server);
    server.request = wrapSid(server.request, sid);
    const res = await call();
    expect([res.status, res.json?.error?.code]).toEqual([status, code]);
    expect(server.runtime.ctx.db.prepare("SELECT count(*) AS n FROM assets").get()).toEqual({ n: 0 });
  });
});

/** Replaces the SID placeholder in URLs with a real session id. */
function wrapSid(request: RunnerServer["request"], sid: string): RunnerServer["request"] {
  return (options) => request({ ...options, url: String(options.url).replace("/SID/", `/${sid}/`) });
}

it("an asset attachment is inlined into the provider request as a data: URL", async () => {
  backend.script(dialectStream("openai", { content: "a cat" }));
  const sid = await createSession(server);
  const { asset_id } = (await storeJson(sid, PNG)).json;
  const rid = await send(server, sid, { content: "what is this?", attachments: [{ type: "asset", asset_id }] });
  await waitForEvent(server, rid);
  expect(completionBodies(backend)[0]!.messages[0]).toEqual({
    role: "user",
    content: [
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
    ],
  });
});
