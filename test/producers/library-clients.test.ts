// The library's admin and producer clients (client/api/admin.ts, producer.ts) against a listening server: each call
// goes through its route's contract, so the paths, answers and refusals are the routes' own.
import { afterEach, beforeEach, expect, it } from "vitest";
import { AdminClient, ProducerClient, ResponseError } from "../../client/index.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.ts";
import { listen } from "../search/support.ts";

let server: TestServer;
let admin: AdminClient;
let serverUrl: string;
beforeEach(async () => {
  server = await startTestServer();
  serverUrl = (await listen(server)).url;
  admin = new AdminClient({ serverUrl, adminToken: ADMIN_TOKEN });
});
afterEach(() => server.close());

it("makes, lists and revokes a producer; the producer publishes, updates, resolves, and is refused once revoked", async () => {
  const made = await admin.createProducer("nas");
  expect((await admin.listProducers()).map((p) => p.name)).toEqual(["nas"]);
  const producer = new ProducerClient({ serverUrl, token: made.token });
  const created = await producer.publish({ key: "backup", severity: "info", title: "Backup running" });
  expect(created).toMatchObject({ key: "backup", status: "pending", revision: 1, source: { plugin: "producer:nas" } });
  const updated = await producer.publish({ key: "backup", severity: "success", title: "Backup done" });
  expect(updated).toMatchObject({ id: created.id, revision: 2, title: "Backup done" });
  expect(await producer.resolve({ key: "backup" })).toMatchObject({ id: created.id, status: "resolved" });
  const session = server.runtime.ctx.sessions.create();
  expect(await producer.publish({ key: "k", severity: "info", title: "in a chat" }, session.id)).toMatchObject({
    session_id: session.id,
  });
  await admin.revokeProducer(made.producer_id);
  const refused = await producer.publish({ key: "x", severity: "info", title: "t" }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ResponseError);
  expect(refused).toMatchObject({ status: 401, code: "unauthorized" });
});

it("pairs and revokes a device, reads the MCP report and exports every chat as a file", async () => {
  const pairing = await admin.createPairing();
  const paired = server.runtime.ctx.pairing.redeem(pairing.code, "phone");
  if (!paired.ok) throw new Error("pairing failed");
  expect((await admin.listDevices()).map((d) => d.device_id)).toEqual([paired.device_id]);
  expect((await admin.revokeDevice(paired.device_id)).revoked_at).not.toBeNull();
  expect(await admin.mcpReport()).toEqual([]);
  server.runtime.ctx.sessions.create();
  const file = await admin.exportAll();
  expect(file.media_type).toMatch(/^application\/json/);
  expect(JSON.parse(new TextDecoder().decode(file.bytes))).toHaveLength(1);
});
