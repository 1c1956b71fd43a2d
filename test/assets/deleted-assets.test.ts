// An attachment deleted after its message was sent: the history reads "[image removed]" in its place, so the
// session (and its forks) go on; the message being sent must still name assets that exist (404 at send).
import { afterEach, beforeEach, expect, it } from "vitest";
import { completion, startScriptedBackend, type ScriptedBackend } from "../../scripts/scripted-backend/index.ts";
import { toProviderMessages } from "../../server/provider/index.ts";
import { providerSettingsSchema } from "../../server/provider/settings.ts";
import {
  completionBodies,
  createSession,
  eventsOf,
  send,
  startRunnerServer,
  waitForEvent,
  type RunnerServer,
} from "../runner/helpers.ts";

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);
const PNG_URL = `data:image/png;base64,${PNG.toString("base64")}`;
const REMOVED = { type: "text", text: "[image removed]" };

let backend: ScriptedBackend;
let server: RunnerServer;
beforeEach(async () => {
  backend = await startScriptedBackend();
  backend.setFallback({ kind: "json", body: completion({ content: "ok" }) });
  server = await startRunnerServer(backend);
});
afterEach(async () => {
  await server.close();
  await backend.close();
});

const ext = (sid: string, action: string) => `/sessions/${sid}/extensions/reference_compatible_attachments/${action}`;

/** Sends and waits for the end; the request must not have failed. */
async function sendOk(sid: string, body: Record<string, unknown>): Promise<void> {
  const rid = await send(server, sid, { stream: false, ...body });
  await waitForEvent(server, rid);
  const error = eventsOf(server, rid).find((e) => e.type === "error");
  expect(error, JSON.stringify(error)).toBeUndefined();
}

it("a deleted attachment in history is sent as [image removed]; the session and a fork go on; the current message's is 404", async () => {
  const sid = await createSession(server);
  const { asset_id } = (
    await server.request({
      method: "POST",
      url: ext(sid, "store_attachment"),
      payload: { data_base64: PNG.toString("base64") },
    })
  ).json;
  await sendOk(sid, { content: "what is this?", attachments: [{ type: "asset", asset_id }] });
  expect(completionBodies(backend)[0]!.messages[0]!.content).toEqual([
    { type: "text", text: "what is this?" },
    { type: "image_url", image_url: { url: PNG_URL } },
  ]);

  const del = await server.request({ method: "POST", url: ext(sid, "delete_attachment"), payload: { asset_id } });
  expect(del.status).toBe(200);

  await sendOk(sid, { content: "and now?" });
  const after = completionBodies(backend)[1]!.messages;
  expect(after[0]).toEqual({ role: "user", content: [{ type: "text", text: "what is this?" }, REMOVED] });
  expect(after.at(-1)).toEqual({ role: "user", content: "and now?" });

  const fork = (await server.request({ method: "POST", url: `/sessions/${sid}/fork`, payload: {} })).json.session
    .id as string;
  await sendOk(fork, { content: "in the fork" });
  expect(completionBodies(backend)[2]!.messages[0]).toEqual({
    role: "user",
    content: [{ type: "text", text: "what is this?" }, REMOVED],
  });

  // The message being sent names the deleted asset: refused before anything is written or sent.
  const sent = completionBodies(backend).length;
  const res = await server.request({
    method: "POST",
    url: `/sessions/${sid}/send`,
    payload: { content: "again", attachments: [{ type: "asset", asset_id }] },
  });
  expect([res.status, res.json.error.code]).toEqual([404, "asset_not_found"]);
  expect(completionBodies(backend)).toHaveLength(sent);
  await sendOk(sid, { content: "still fine" });
});

it("toProviderMessages: an unreadable asset becomes the text part (logged with the reason); other attachments are untouched", async () => {
  const settings = providerSettingsSchema.parse({ provider: "reference_compatible", model: "m" });
  const logged: Array<{ obj: object; msg: string }> = [];
  const log = { info: (obj: object, msg: string) => void logged.push({ obj, msg }), warn: () => undefined };
  const readAsset = async (_sid: string, assetId: string) => {
    if (assetId === "ast_gone") throw new Error('session s1 has no attachment "ast_gone"');
    return { media_type: "image/png", bytes: PNG };
  };
  const messages = await toProviderMessages(
    [
      { role: "user", content: "", metadata: { attachments: [{ type: "asset", asset_id: "ast_gone" }] } },
      { role: "assistant", content: "a cat" },
      {
        role: "user",
        content: "two",
        metadata: {
          attachments: [
            { type: "asset", asset_id: "ast_here" },
            { type: "image_url", url: "https://example.test/a.png" },
          ],
        },
      },
    ],
    { settings, readAsset, sessionId: "s1", log },
  );
  expect(messages[0]).toEqual({ role: "user", content: [REMOVED] });
  expect(messages[2]!.content).toEqual([
    { type: "text", text: "two" },
    { type: "image_url", image_url: { url: PNG_URL } },
    { type: "image_url", image_url: { url: "https://example.test/a.png" } },
  ]);
  expect(logged).toEqual([
    {
      obj: {
        session_id: "s1",
        asset_id: "ast_gone",
        reason: 'session s1 has no attachment "ast_gone"',
        sent_as: expect.stringContaining("[image removed]"),
      },
      msg: "attachment asset cannot be read; sent as text",
    },
  ]);

  // A provider that was given no way to read assets is a setup error, not a removed image.
  await expect(
    toProviderMessages(
      [{ role: "user", content: "x", metadata: { attachments: [{ type: "asset", asset_id: "ast_here" }] } }],
      { settings, readAsset: undefined, sessionId: "s1" },
    ),
  ).rejects.toThrow("cannot be read: the provider was given no readAsset");
});
