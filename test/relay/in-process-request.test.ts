// The relay runs an app's call through the Fastify app in-process (server/http/in-process-request.ts) instead of
// `inject`: for every kind of answer (JSON, each refusal, a body over the limit, bytes, a streamed app file, a query
// string) it gives the status, content type and body `inject` gives for the same request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXTENSION } from "../../server/http/routes/assets.ts";
import { runInProcess, type InProcessRequest } from "../../server/http/in-process-request.ts";
import { pairedDevice, startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;
let device: { device_id: string; device_token: string };
let sessionId: string;
let assetId: string;
const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

beforeAll(async () => {
  server = await startTestServer();
  const { ctx } = server.runtime;
  device = pairedDevice(server);
  sessionId = ctx.sessions.create().id;
  ctx.sessions.append(sessionId, { role: "user", content: 'héllo \u2028 "quoted"', metadata: {} });
  const stored = await server.request({
    method: "POST",
    url: `/sessions/${sessionId}/extensions/${EXTENSION}/store_attachment`,
    token: device.device_token,
    payload: { data_base64: png.toString("base64"), media_type: "image/png" },
  });
  assetId = (stored.json as { asset_id: string }).asset_id;
});
afterAll(() => server.runtime.close());

/** The same request both ways: status, content type and body bytes must agree. */
async function bothWays(request: InProcessRequest) {
  const { app } = server.runtime;
  const injected = await app.inject({
    method: request.method as "GET",
    url: request.url,
    headers: request.headers,
    ...(request.body === undefined ? {} : { payload: request.body }),
  });
  const direct = await runInProcess(app, request);
  expect(direct.statusCode).toBe(injected.statusCode);
  expect(direct.headers["content-type"]).toBe(injected.headers["content-type"]);
  expect(direct.body.equals(injected.rawPayload)).toBe(true);
  return direct;
}

const json = { "content-type": "application/json" };
const as = (token: string) => ({ authorization: `Bearer ${token}` });

describe("a relayed call runs in-process as over inject (B164)", () => {
  it("answers JSON routes, with query strings, as a device", async () => {
    expect((await bothWays({ method: "GET", url: "/sessions", headers: as(device.device_token) })).statusCode).toBe(
      200,
    );
    expect(
      (await bothWays({ method: "GET", url: `/sessions/${sessionId}/messages`, headers: as(device.device_token) }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await bothWays({
          method: "GET",
          url: "/events?limit=2&session_id=" + sessionId,
          headers: as(device.device_token),
        })
      ).statusCode,
    ).toBe(200);
    // A relayed call carries its device as a relay pass, which `inject` has no way to give: run in-process only.
    const relayed = await runInProcess(server.runtime.app, {
      method: "GET",
      url: `/sessions/${sessionId}/messages`,
      headers: {},
      relayed: server.runtime.ctx.auth.relayPass(device.device_id),
    });
    expect(relayed.statusCode).toBe(200);
    expect(JSON.parse(relayed.body.toString()).messages[0].content).toBe('héllo \u2028 "quoted"');
  });

  it("gives each refusal its own status and error body", async () => {
    expect((await bothWays({ method: "GET", url: "/sessions", headers: {} })).statusCode).toBe(401);
    expect((await bothWays({ method: "GET", url: "/producers", headers: as(device.device_token) })).statusCode).toBe(
      403,
    );
    expect(
      (await bothWays({ method: "GET", url: "/no/such/route", headers: as(device.device_token) })).statusCode,
    ).toBe(404);
    const withBody = async (method: string, url: string, body: string) =>
      (await bothWays({ method, url, headers: { ...as(device.device_token), ...json }, body })).statusCode;
    expect(await withBody("PATCH", `/sessions/${sessionId}`, '{"title": 5}')).toBe(400);
    expect(await withBody("POST", "/sessions", "{not json")).toBe(400);
    expect(await withBody("POST", "/sessions", JSON.stringify({ x: "a".repeat(2 * 1024 * 1024) }))).toBe(413);
  });

  it("creates, updates and deletes with bodies (each once: they change what the next answer says)", async () => {
    const run = (request: InProcessRequest) => runInProcess(server.runtime.app, request);
    const created = await run({
      method: "POST",
      url: "/sessions",
      headers: { ...as(device.device_token), ...json },
      body: "{}",
    });
    expect(created.statusCode).toBe(201);
    const id = JSON.parse(created.body.toString()).session.id as string;
    const updated = await run({
      method: "PATCH",
      url: `/sessions/${id}`,
      headers: { ...as(device.device_token), ...json },
      body: '{"title":"ünïcode"}',
    });
    expect(updated.statusCode).toBe(200);
    expect(JSON.parse(updated.body.toString()).session.title).toBe("ünïcode");
    const read = await bothWays({ method: "GET", url: `/sessions/${id}`, headers: as(device.device_token) });
    expect(JSON.parse(read.body.toString()).session.title).toBe("ünïcode");
  });

  it("answers bytes with their content type, and streams the app's files", async () => {
    const bytes = await bothWays({
      method: "POST",
      url: `/sessions/${sessionId}/extensions/${EXTENSION}/download_attachment`,
      headers: { ...as(device.device_token), ...json },
      body: JSON.stringify({ asset_id: assetId }),
    });
    expect(bytes.headers["content-type"]).toBe("image/png");
    expect(bytes.body.equals(png)).toBe(true);
    const page = await bothWays({ method: "GET", url: "/", headers: {} });
    expect(page.statusCode).toBe(200);
    expect(page.body.toString()).toMatch(/<html/i);
  });
});
