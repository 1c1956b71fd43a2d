// The /push routes (docs/push.md "Routes", invariants P1, P2, P6): the VAPID key, subscriptions stored with the
// device that sent them (directly or through the bridge's relay), refused endpoints, settings, and the config rules.
import { p256 } from "@noble/curves/nist.js";
import { statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parseConfig } from "../../server/config/load.ts";
import { runRelayedCall } from "../../server/forwarder/api-relay.ts";
import { VAPID_KEY_FILE } from "../../server/push/vapid-keys.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { PushHarness, PUSH_CONFIG } from "./support/harness.ts";
import { useClosing } from "../support/use-closing.ts";

const closing = useClosing();

const P256DH = Buffer.from(p256.getPublicKey(new Uint8Array(32).fill(9), false)).toString("base64url");
/** 65 bytes, 0x04 first, but no point of the curve: every push to it would fail inside the server. */
const OFF_CURVE = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString("base64url");
const AUTH = Buffer.alloc(16, 3).toString("base64url");
const FCM = "https://fcm.googleapis.com/fcm/send/abc123";
const subscription = (endpoint: string, keys: Record<string, unknown> = { p256dh: P256DH, auth: AUTH }) => ({
  endpoint,
  expirationTime: null,
  keys,
});

async function pairedToken(server: TestServer): Promise<{ id: string; token: string }> {
  const pairing = server.runtime.ctx.pairing;
  const redeemed = pairing.redeem(pairing.createCode().code, "phone");
  if (!redeemed.ok) throw new Error(redeemed.reason);
  return { id: redeemed.device_id, token: redeemed.device_token };
}

it("GET /push/key answers the VAPID public key, kept 0600 in DATA_DIR and the same after a restart", async () => {
  let plain = closing.own(await startTestServer({ push: PUSH_CONFIG }));
  const first = await plain.request({ method: "GET", url: "/push/key" });
  expect(first.status).toBe(200);
  expect(first.json.public_key).toMatch(/^[A-Za-z0-9_-]{87}$/);
  expect(Buffer.from(first.json.public_key, "base64url")[0]).toBe(4);
  expect(statSync(join(plain.dataDir, VAPID_KEY_FILE)).mode & 0o777).toBe(0o600);
  await plain.close(true);
  plain = closing.own(await startTestServer({ push: PUSH_CONFIG }, { dataDir: plain.dataDir }));
  expect((await plain.request({ method: "GET", url: "/push/key" })).json.public_key).toBe(first.json.public_key);
});

it("without push in the config every /push route answers 404 push_not_configured and no key is made", async () => {
  const plain = closing.own(await startTestServer({}));
  for (const [method, url] of [
    ["GET", "/push/key"],
    ["POST", "/push/subscriptions"],
    ["GET", "/push/settings"],
  ] as const) {
    const res = await plain.request({ method, url, payload: method === "POST" ? subscription(FCM) : undefined });
    expect([res.status, res.json.error.code]).toEqual([404, "push_not_configured"]);
  }
  expect(() => statSync(join(plain!.dataDir, VAPID_KEY_FILE))).toThrow();
});

it("push.subject is required, as a mailto: address or an https: URL", () => {
  expect(() => parseConfig({ push: {} })).toThrow(/config error at push\.subject/);
  expect(() => parseConfig({ push: { subject: "http://example.com" } })).toThrow(
    /push\.subject: use a mailto: address or an https: URL/,
  );
  expect(() => parseConfig({ push: { subject: "me" } })).toThrow(/push\.subject/);
  expect(parseConfig({ push: { subject: "https://example.com/contact" } }).push?.allowed_hosts).toContain(
    "*.push.apple.com",
  );
  expect(() => parseConfig({ push: { subject: "mailto:a@b.c", allowed_hosts: ["https://x.com"] } })).toThrow(
    /push\.allowed_hosts\.0/,
  );
});

it("a device stores and removes its subscription; another device's endpoint is left alone; the admin token has none", async () => {
  const plain = closing.own(await startTestServer({ push: PUSH_CONFIG }));
  const phone = await pairedToken(plain);
  const laptop = await pairedToken(plain);
  const stored = await plain.request({
    method: "POST",
    url: "/push/subscriptions",
    token: phone.token,
    payload: subscription(FCM),
  });
  expect([stored.status, stored.json]).toEqual([201, { endpoint: FCM }]);
  const store = plain.runtime.ctx.push!.subscriptions;
  expect(store.ofDevice(phone.id).map((s) => s.endpoint)).toEqual([FCM]);

  const byOther = await plain.request({
    method: "DELETE",
    url: "/push/subscriptions",
    token: laptop.token,
    payload: { endpoint: FCM },
  });
  expect(byOther.status).toBe(204);
  expect(store.ofDevice(phone.id)).toHaveLength(1);
  const removed = await plain.request({
    method: "DELETE",
    url: "/push/subscriptions",
    token: phone.token,
    payload: { endpoint: FCM },
  });
  expect([removed.status, removed.text]).toEqual([204, ""]);
  expect(store.ofDevice(phone.id)).toHaveLength(0);

  const admin = await plain.request({ method: "POST", url: "/push/subscriptions", payload: subscription(FCM) });
  expect([admin.status, admin.json.error.code]).toEqual([403, "device_token_required"]);
  expect((await plain.request({ method: "GET", url: "/push/key", token: phone.token })).status).toBe(200);
});

it("a device keeps at most push.max_subscriptions_per_device subscriptions, the newest", async () => {
  const plain = closing.own(await startTestServer({ push: { ...PUSH_CONFIG, max_subscriptions_per_device: 2 } }));
  const phone = await pairedToken(plain);
  for (const n of [1, 2, 3])
    await plain.request({
      method: "POST",
      url: "/push/subscriptions",
      token: phone.token,
      payload: subscription(`${FCM}${n}`),
    });
  expect(
    plain.runtime.ctx
      .push!.subscriptions.ofDevice(phone.id)
      .map((s) => s.endpoint)
      .sort(),
  ).toEqual([`${FCM}2`, `${FCM}3`]);
});

const refused: Array<[string, Record<string, unknown>, string, string]> = [
  ["no endpoint", { keys: { p256dh: P256DH, auth: AUTH } }, "invalid_input", "body.endpoint"],
  ["no keys", { endpoint: FCM }, "invalid_input", "body.keys"],
  [
    "a p256dh of the wrong length",
    subscription(FCM, { p256dh: P256DH.slice(0, 40), auth: AUTH }),
    "invalid_input",
    "body.keys.p256dh",
  ],
  [
    "a p256dh of 65 bytes that is not a point of P-256",
    subscription(FCM, { p256dh: OFF_CURVE, auth: AUTH }),
    "invalid_input",
    "body.keys.p256dh",
  ],
  [
    "a p256dh that is not base64url",
    subscription(FCM, { p256dh: "not base64!", auth: AUTH }),
    "invalid_input",
    "body.keys.p256dh",
  ],
  [
    "an auth of the wrong length",
    subscription(FCM, { p256dh: P256DH, auth: "AAAA" }),
    "invalid_input",
    "body.keys.auth",
  ],
  ["an endpoint that is not a URL", subscription("fcm.googleapis.com/x"), "push_endpoint_not_allowed", "body.endpoint"],
  [
    "an http: endpoint on a push service",
    subscription("http://fcm.googleapis.com/fcm/send/x"),
    "push_endpoint_not_allowed",
    "body.endpoint",
  ],
  [
    "an https: endpoint elsewhere",
    subscription("https://evil.example.com/push"),
    "push_endpoint_not_allowed",
    "body.endpoint",
  ],
  [
    "a host that only ends like an allowed one",
    subscription("https://push.apple.com.evil.example/x"),
    "push_endpoint_not_allowed",
    "body.endpoint",
  ],
  [
    "a host glued to an allowed suffix",
    subscription("https://evilpush.apple.com/x"),
    "push_endpoint_not_allowed",
    "body.endpoint",
  ],
  [
    "another port on an allowed host",
    subscription("https://fcm.googleapis.com:8443/fcm/send/x"),
    "push_endpoint_not_allowed",
    "body.endpoint",
  ],
  [
    "a user name in the endpoint",
    subscription("https://u:p@fcm.googleapis.com/fcm/send/x"),
    "push_endpoint_not_allowed",
    "body.endpoint",
  ],
  [
    "an http: loopback endpoint without allow_insecure_endpoints",
    subscription("http://127.0.0.1:9/notify/x"),
    "push_endpoint_not_allowed",
    "body.endpoint",
  ],
  [
    "an http: endpoint off loopback even with allow_insecure_endpoints",
    subscription("http://192.168.1.5/notify/x"),
    "push_endpoint_not_allowed",
    "body.endpoint",
  ],
];

it.each(refused)("a subscription with %s is refused 400 naming the field", async (name, body, code, path) => {
  const insecure = name.includes("even with allow_insecure_endpoints");
  const plain = closing.own(
    await startTestServer({ push: { subject: PUSH_CONFIG.subject, allow_insecure_endpoints: insecure } }),
  );
  const phone = await pairedToken(plain);
  const res = await plain.request({ method: "POST", url: "/push/subscriptions", token: phone.token, payload: body });
  expect([res.status, res.json.error.code], res.text).toEqual([400, code]);
  expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
  expect(plain.runtime.ctx.push!.subscriptions.ofDevice(phone.id)).toHaveLength(0);
});

it("the browsers' push services are allowed by default, Apple's and Microsoft's by subdomain", async () => {
  const plain = closing.own(await startTestServer({ push: { subject: PUSH_CONFIG.subject } }));
  const phone = await pairedToken(plain);
  const endpoints = [
    FCM,
    "https://updates.push.services.mozilla.com/wpush/v2/x",
    "https://web.push.apple.com/QG9",
    "https://wns2-par02p.notify.windows.com/w/?token=x",
  ];
  for (const endpoint of endpoints) {
    const res = await plain.request({
      method: "POST",
      url: "/push/subscriptions",
      token: phone.token,
      payload: subscription(endpoint),
    });
    expect(res.status, `${endpoint}: ${res.text}`).toBe(201);
  }
});

it("PATCH /push/settings turns previews on for the calling device only", async () => {
  const plain = closing.own(await startTestServer({ push: PUSH_CONFIG }));
  const phone = await pairedToken(plain);
  const laptop = await pairedToken(plain);
  const settingsOf = async (device: { token: string }) =>
    (await plain.request({ method: "GET", url: "/push/settings", token: device.token })).json;
  const patch = (payload: unknown) =>
    plain.request({ method: "PATCH", url: "/push/settings", token: phone.token, payload: payload as object });
  expect(await settingsOf(phone)).toEqual({ preview: false });
  const patched = await patch({ preview: true });
  expect([patched.status, patched.json]).toEqual([200, { preview: true }]);
  expect(await settingsOf(phone)).toEqual({ preview: true });
  expect(await settingsOf(laptop)).toEqual({ preview: false });
  const bad = await patch({ preview: "yes" });
  expect([bad.status, bad.json.error.details[0].path]).toEqual([400, "body.preview"]);
});

it("a subscription sent through the bridge's relay is stored with the relaying device", async () => {
  const h = closing.own(await PushHarness.start());
  const ctx = h.server.runtime.ctx;
  const phone = await pairedToken(h.server);
  const { clientHash: _hash, ...body } = await h.service.subscribe(h.push.publicKey);
  const result = await runRelayedCall(ctx, h.server.runtime.app, {
    request_id: "r1",
    device_id: phone.id,
    method: "POST",
    path: "/push/subscriptions",
    body,
  });
  expect(result).toMatchObject({ request_id: "r1", status: 201 });
  expect(ctx.push!.subscriptions.ofDevice(phone.id).map((s) => s.endpoint)).toEqual([body.endpoint]);
});
