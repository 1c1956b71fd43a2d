// Writes a data folder as a release before people existed left it, for the upgrade test (test/people/upgrade.test.ts,
// docs/people.md "Upgrade"). Run it at that release, in its own checkout:
//   git worktree add /tmp/prev 0e20d7f && cp -al <repo>/node_modules /tmp/prev/ && cp scripts/make-upgrade-fixture.ts /tmp/prev/scripts/
//   cd /tmp/prev && node --import tsx scripts/make-upgrade-fixture.ts <out dir>
// The folder gets: two devices (one end to end, one plain), two chats (one with an image), a pending approval, an
// application notification, a push subscription, a producer token and the server key, and `fixture.json` with the
// tokens and the end-to-end device's secret key, so the test can act as each of them after the upgrade.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { generateKeyPair } from "../client/wire/crypto/index.ts";
import { parseConfig } from "../server/config/load.ts";
import { parseProducer, producerInputSchema } from "../server/notifications/input.ts";
import { createRuntime } from "../server/runtime.ts";

const ADMIN_TOKEN = "upgrade-fixture-admin-token";
/** A 1x1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PUSH = { subject: "mailto:ops@example.com", allow_insecure_endpoints: true } as const;

async function main(out: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const runtime = createRuntime({
    config: parseConfig({ titles: { enabled: false }, push: PUSH }),
    dataDir: out,
    adminToken: ADMIN_TOKEN,
  });
  await runtime.app.ready();
  const call = async (method: string, url: string, body?: unknown, token = ADMIN_TOKEN) => {
    const answer = await runtime.app.inject({
      method: method as "GET",
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    if (answer.statusCode >= 300) throw new Error(`${method} ${url}: ${answer.statusCode} ${answer.body}`);
    return answer.body === "" ? undefined : (answer.json() as Record<string, any>);
  };
  const { pairing, notifications } = runtime.ctx;
  const keys = generateKeyPair();
  const e2e = pairing.redeem(pairing.createCode().code, "E2E phone", keys.publicKey);
  const plain = pairing.redeem(pairing.createCode().code, "Plain laptop");
  if (!e2e.ok || !plain.ok) throw new Error("pairing failed");

  const withImage = (await call("POST", "/sessions", {}))!.session.id as string;
  const stored = await call(
    "POST",
    `/sessions/${withImage}/extensions/reference_compatible_attachments/store_attachment`,
    { data_base64: PNG, media_type: "image/png", filename: "dot.png" },
  );
  await call("POST", `/sessions/${withImage}/messages`, {
    role: "user",
    content: "UPGRADE-CHAT-ONE look at this picture",
    metadata: { attachments: [{ type: "asset", asset_id: stored!.asset_id }] },
  });
  await call("PATCH", `/sessions/${withImage}`, { title: "Picture chat", pinned: true });
  const second = (await call("POST", "/sessions", {}))!.session.id as string;
  await call("POST", `/sessions/${second}/messages`, { role: "user", content: "UPGRADE-CHAT-TWO hello" });

  const approval = notifications.session(second).publish(
    parseProducer(producerInputSchema, {
      key: "approval:req_fixture:0",
      kind: "interaction",
      severity: "warning",
      title: "Approve mcp__files__write",
      body: '{"path": "notes.txt"}',
      retention: { version: 1, policy: "until_request_complete" },
      request_id: "req_fixture",
    }),
    "mcp:files",
  );
  await call("POST", "/application/notifications", {
    key: "backup",
    severity: "info",
    title: "UPGRADE-APP-NOTICE backup finished",
  });
  const producer = (await call("POST", "/producers", { name: "backup script" }))!;
  const endpoint = "http://127.0.0.1:9/push/upgrade-fixture";
  const p256dh = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString("base64url");
  const auth = Buffer.alloc(16, 3).toString("base64url");
  await call(
    "POST",
    "/push/subscriptions",
    { endpoint, expirationTime: null, keys: { p256dh, auth } },
    e2e.device_token,
  );
  await runtime.close();
  for (const file of readdirSync(out)) if (file.endsWith("-wal") || file.endsWith("-shm")) rmSync(join(out, file));

  const fixture = {
    admin_token: ADMIN_TOKEN,
    e2e_device: { device_id: e2e.device_id, device_token: e2e.device_token, device_secret_key: keys.secretKey },
    plain_device: { device_id: plain.device_id, device_token: plain.device_token },
    sessions: { with_image: withImage, second },
    asset_id: stored!.asset_id,
    approval_id: approval.id,
    producer: { producer_id: producer.producer_id, token: producer.token },
    push_endpoint: endpoint,
  };
  writeFileSync(join(out, "fixture.json"), `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`wrote ${out}`);
}

await main(resolve(process.argv[2] ?? "test/people/fixtures/upgrade-0e20d7f"));
