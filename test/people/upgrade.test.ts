// The upgrade keeps everything (docs/people.md invariant N9): a data folder written by the release before people
// (scripts/make-upgrade-fixture.ts at 0e20d7f, kept in fixtures/upgrade-0e20d7f) starts under this version with one
// admin person, Owner, owning every device, chat, notification, push subscription and producer token, and each of them
// still works: the devices' tokens, the chats and their image, the producer's token, the end-to-end device's keys.
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openContentKey, openEvent, publicKeyOf } from "../../client/wire/crypto/index.ts";
import { contentKeysAnswerSchema } from "../../client/wire/e2e.ts";
import { startTestServer, tempDir, type TestServer } from "../support/server.ts";

const FIXTURE = join(import.meta.dirname, "fixtures", "upgrade-0e20d7f");
const fixture = JSON.parse(readFileSync(join(FIXTURE, "fixture.json"), "utf8"));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function upgraded(): Promise<TestServer> {
  const dataDir = tempDir("people-upgrade-");
  cpSync(FIXTURE, dataDir, { recursive: true });
  return startTestServer(
    { push: { subject: "mailto:ops@example.com", allow_insecure_endpoints: true } },
    // The earlier release kept no admin token file here (the fixture script passed its token): the test's own is set.
    { dataDir },
  );
}

it("N9: the first start over an earlier data folder makes Owner, the one admin, owning every device and chat", async () => {
  server = await upgraded();
  const people = await server.request({ method: "GET", url: "/people" });
  expect(people.status).toBe(200);
  expect(people.json.people).toHaveLength(1);
  const owner = people.json.people[0];
  expect(owner).toMatchObject({ name: "Owner", role: "admin", agents: "*", removed_at: null });

  const devices = await server.request({ method: "GET", url: "/devices", token: fixture.plain_device.device_token });
  expect(devices.status).toBe(200);
  expect(devices.json.devices.map((d: { device_id: string }) => d.device_id).sort()).toEqual(
    [fixture.e2e_device.device_id, fixture.plain_device.device_id].sort(),
  );
  expect(devices.json.devices.every((d: { person_id: string }) => d.person_id === owner.id)).toBe(true);

  for (const token of [fixture.e2e_device.device_token, fixture.plain_device.device_token]) {
    const list = await server.request({ method: "GET", url: "/sessions", token });
    expect(list.status).toBe(200);
    expect(list.json.sessions.map((s: { id: string }) => s.id).sort()).toEqual(
      [fixture.sessions.with_image, fixture.sessions.second].sort(),
    );
    expect(list.json.sessions.every((s: { owner: string; owner_name: string }) => s.owner === owner.id)).toBe(true);
    // The owner's pin survived: it is the owner's own flag.
    expect(list.json.sessions.find((s: { id: string }) => s.id === fixture.sessions.with_image).pinned).toBe(true);
  }
  const image = await server.request({
    method: "POST",
    url: `/sessions/${fixture.sessions.with_image}/extensions/reference_compatible_attachments/download_attachment`,
    token: fixture.plain_device.device_token,
    payload: { asset_id: fixture.asset_id },
  });
  expect(image.status).toBe(200);
  const chat = await server.request({
    method: "GET",
    url: `/sessions/${fixture.sessions.with_image}`,
    token: fixture.e2e_device.device_token,
  });
  expect(chat.json.session.messages[0].content).toContain("UPGRADE-CHAT-ONE");
});

it("N9: notifications, the approval, the push subscription and the producer token are Owner's and still work", async () => {
  server = await upgraded();
  const ownerId = server.runtime.ctx.personStore.actingAdmin().id;
  const token = fixture.plain_device.device_token;
  const notices = await server.request({ method: "GET", url: "/application/notifications", token });
  expect(JSON.stringify(notices.json)).toContain("UPGRADE-APP-NOTICE");
  const approvals = await server.request({
    method: "GET",
    url: `/sessions/${fixture.sessions.second}/notifications?include_terminal=true`,
    token,
  });
  expect(approvals.status).toBe(200);
  expect(JSON.stringify(approvals.json)).toContain(fixture.approval_id);

  const db = server.runtime.ctx.db;
  const subscription = db
    .prepare<[string], { person_id: string; device_id: string }>(
      "SELECT person_id, device_id FROM push_subscriptions WHERE endpoint = ?",
    )
    .get(fixture.push_endpoint);
  expect(subscription).toEqual({ person_id: ownerId, device_id: fixture.e2e_device.device_id });

  const posted = await server.request({
    method: "POST",
    url: `/sessions/${fixture.sessions.second}/notifications`,
    token: fixture.producer.token,
    payload: { key: "after-upgrade", severity: "info", title: "producer still works" },
  });
  expect(posted.status).toBe(201);
  const producer = db.prepare<[string], { person_id: string }>("SELECT person_id FROM producers WHERE id = ?");
  expect(producer.get(fixture.producer.producer_id)?.person_id).toBe(ownerId);
});

it("N9: the end-to-end device's stored key keeps opening what is sealed after the upgrade; the server key is the same", async () => {
  server = await upgraded();
  const { ctx } = server.runtime;
  const storedKey = JSON.parse(readFileSync(join(FIXTURE, "server-key.json"), "utf8")) as { secret_key: string };
  expect(publicKeyOf(storedKey.secret_key)).toBe(ctx.e2e.publicKey);
  const device = fixture.e2e_device;
  const appended = await server.request({
    method: "POST",
    url: `/sessions/${fixture.sessions.second}/messages`,
    token: device.device_token,
    payload: { role: "user", content: "AFTER-UPGRADE" },
  });
  expect(appended.status).toBe(201);
  const events = await server.request({
    method: "GET",
    url: `/events?session_id=${fixture.sessions.second}&since_id=0`,
    token: device.device_token,
  });
  const event = events.json.events.find(
    (e: { type: string; content?: string }) => e.type === "message_appended" && e.content === "AFTER-UPGRADE",
  );
  expect(event).toBeDefined();
  // Sealed as the forwarder seals what it pushes to the bridge, for the chat's person (Owner, whose keys these became).
  const envelope = ctx.e2e.sealEvent(ctx.personStore.actingAdmin().id, event.event_id, JSON.stringify(event));
  const keys = await server.request({ method: "GET", url: "/e2e/keys", token: device.device_token });
  expect(keys.status).toBe(200);
  const opened = contentKeysAnswerSchema
    .parse(keys.json)
    .keys.map(({ key_id, box }) =>
      openContentKey(device.device_secret_key, ctx.serverId, device.device_id, key_id, box),
    );
  const texts = opened.flatMap((key) => {
    try {
      return [openEvent(key, ctx.serverId, envelope)];
    } catch {
      return [];
    }
  });
  expect(texts).toHaveLength(1);
  expect(texts[0]).toContain("AFTER-UPGRADE");
});
