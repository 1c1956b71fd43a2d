// Bad sends get a clear 4xx with the one error body (docs/errors.md "HTTP") and write nothing: no message, no event, no run.
import { afterEach, beforeEach, expect, it } from "vitest";
import { startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { createSession, startRunnerServer, waitForEvent, type RunnerServer } from "./helpers.ts";

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 7)]);
const dataUrl = (bytes: Buffer, type = "image/png") => `data:${type};base64,${bytes.toString("base64")}`;

let backend: ScriptedBackend;
let server: RunnerServer;
beforeEach(async () => {
  backend = await startScriptedBackend();
  server = await startRunnerServer(
    backend,
    { assets: { max_bytes: 512 } },
    { request_options_ui: { effort: { type: "select", options: ["low", "high"] } } },
  );
});
afterEach(async () => {
  await server.close();
  await backend.close();
});

const cases: Array<[string, Record<string, unknown> | "other-asset", number, string]> = [
  ["empty content", { content: "" }, 400, "invalid_input"],
  ["blank content", { content: "  \n" }, 400, "invalid_input"],
  ["no content", { attachments: [] }, 400, "invalid_input"],
  ["an unknown field", { content: "hi", model: "x" }, 400, "invalid_input"],
  ["stream of the wrong type", { content: "hi", stream: "yes" }, 400, "invalid_input"],
  [
    "an attachment of an unknown type",
    { content: "hi", attachments: [{ type: "file", path: "/etc/passwd" }] },
    400,
    "invalid_input",
  ],
  [
    "an image_url that is not http(s)",
    { content: "hi", attachments: [{ type: "image_url", url: "file:///etc/passwd" }] },
    400,
    "invalid_input",
  ],
  [
    "an image_data that is not a data URL",
    { content: "hi", attachments: [{ type: "image_data", data_url: "data:nonsense" }] },
    400,
    "invalid_input",
  ],
  [
    "an image_data whose bytes are no image",
    { content: "hi", attachments: [{ type: "image_data", data_url: dataUrl(Buffer.from("plain text")) }] },
    415,
    "unsupported_media_type",
  ],
  [
    "an image_data of a contradicting type",
    { content: "hi", attachments: [{ type: "image_data", data_url: dataUrl(PNG, "image/gif") }] },
    400,
    "media_type_mismatch",
  ],
  [
    "an image_data over the size limit",
    {
      content: "hi",
      attachments: [{ type: "image_data", data_url: dataUrl(Buffer.concat([PNG, Buffer.alloc(600)])) }],
    },
    413,
    "attachment_too_large",
  ],
  [
    "an unknown asset",
    { content: "hi", attachments: [{ type: "asset", asset_id: "ast_00000000000000000000000000000000" }] },
    404,
    "asset_not_found",
  ],
  ["an asset of another session", "other-asset", 404, "asset_not_found"],
  ["a reserved request option", { content: "hi", request_options: { model: "other" } }, 400, "invalid_input"],
  [
    "a request option outside its choices",
    { content: "hi", request_options: { effort: "extreme" } },
    400,
    "invalid_input",
  ],
];

it.each(cases)("%s", async (_name, body, status, code) => {
  const sid = await createSession(server);
  let payload = body;
  if (payload === "other-asset") {
    const other = await createSession(server);
    const stored = await server.request({
      method: "POST",
      url: `/sessions/${other}/extensions/reference_compatible_attachments/store_attachment`,
      payload: { data_base64: PNG.toString("base64") },
    });
    payload = { content: "hi", attachments: [{ type: "asset", asset_id: stored.json.asset_id }] };
  }
  const before = { events: server.runtime.ctx.events.latestId, version: server.runtime.ctx.sessions.get(sid).version };
  const res = await server.request({ method: "POST", url: `/sessions/${sid}/send`, payload });
  expect([res.status, res.json.error.code], res.text).toEqual([status, code]);
  expect(res.json.error.message).toEqual(expect.any(String));
  expect(server.runtime.ctx.events.latestId).toBe(before.events);
  expect(server.runtime.ctx.sessions.get(sid).version).toBe(before.version);
  expect(server.runtime.ctx.runner.activeRequest(sid)).toBeUndefined();
  expect(backend.requests).toHaveLength(0);
});

it("a send to an unknown session is 404 session_not_found", async () => {
  const res = await server.request({ method: "POST", url: "/sessions/nope/send", payload: { content: "hi" } });
  expect([res.status, res.json.error.code]).toEqual([404, "session_not_found"]);
});

it("an image-only message (attachments, no text) is accepted", async () => {
  backend.setFallback({
    kind: "json",
    body: { choices: [{ index: 0, message: { role: "assistant", content: "nice" }, finish_reason: "stop" }] },
  });
  const sid = await createSession(server);
  const res = await server.request({
    method: "POST",
    url: `/sessions/${sid}/send`,
    payload: { content: "", attachments: [{ type: "image_data", data_url: dataUrl(PNG) }], stream: false },
  });
  expect(res.status).toBe(202);
  const events = await waitForEvent(server, res.json.request_id as string);
  expect(events.some((e) => e.type === "error")).toBe(false);
});
