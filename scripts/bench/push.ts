// Web Push benchmark (issue 24): the time from the commit that triggers a push to the push service receiving it,
// p50 and p99 over 1,000 pushes to 100 devices (10 warning notifications, each pushed to the 100 devices'
// subscriptions, one at a time). The push service is a loopback receiver in its own process that notes each request's arrival
// (the Topic header names the notification) and answers 201; decrypting is not its part (the tests' web-push-testing
// checks that). Baseline in the same run: the same pushes built by web-push and posted with undici by a plain loop
// at the same concurrency, starting at the moment the commit would have: what the server's reading of the log, fan
// out and delivery lanes add on top of encrypting and posting.
// Usage: node --import tsx scripts/bench/push.ts [--rounds 10]
import { createECDH, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { request } from "undici";
import webpush from "web-push";
import { z } from "zod";
import { parseConfig } from "../../server/config/load.ts";
import { createNotificationApi } from "../../server/notifications/api.ts";
import { DEFAULT_LIMITS } from "../../server/push/delivery-queue.ts";
import { topicOf } from "../../server/push/sender.ts";
import type { StoredSubscription } from "../../server/push/subscription-store.ts";
import { ensureVapidKeys } from "../../server/push/vapid-keys.ts";
import { createRuntime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { forkChild, nextMessage } from "./child-process.ts";
import { percentile } from "./stats.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "10" }, receiver: { type: "boolean", default: false } },
});
const DEVICES = 100;
const ROUNDS = Number(values.rounds);
const SUBJECT = "mailto:bench@example.com";

const arrivalSchema = z.object({ arrivals: z.array(z.object({ topic: z.string(), at: z.number() })) });
const now = () => performance.timeOrigin + performance.now();

/** The child: a push service that notes arrivals and hands them over once `expect` of them came. */
function runReceiver(): void {
  let arrivals: Array<{ topic: string; at: number }> = [];
  let expected = Infinity;
  const handOver = () => {
    if (arrivals.length < expected) return;
    process.send!({ arrivals });
    arrivals = [];
    expected = Infinity;
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrivals.push({ topic: String(req.headers.topic ?? ""), at: now() });
      res.writeHead(201).end();
      handOver();
    });
  });
  process.on("message", (message: { expect?: number }) => {
    expected = message.expect ?? Infinity;
    handOver();
  });
  process.on("disconnect", () => server.close());
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
}

function subscriptionFor(port: number, index: number): StoredSubscription {
  const ecdh = createECDH("prime256v1");
  return {
    endpoint: `http://127.0.0.1:${port}/push/${index}`,
    device_id: "",
    keys: { p256dh: ecdh.generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") },
  };
}

/** The baseline: encrypt and post each push from a plain loop, `concurrency` at a time. */
async function postDirectly(
  subscriptions: StoredSubscription[],
  keys: { publicKey: string; privateKey: string },
  topic: string,
): Promise<void> {
  let next = 0;
  const payload = JSON.stringify({ v: 1, type: "notification", tag: topic, title: "Disk almost full" });
  const worker = async () => {
    for (let i = next++; i < subscriptions.length; i = next++) {
      const details = webpush.generateRequestDetails(subscriptions[i]!, payload, {
        vapidDetails: { subject: SUBJECT, ...keys },
        contentEncoding: "aes128gcm",
        TTL: 86400,
        urgency: "normal",
        topic,
      });
      const headers = Object.fromEntries(
        Object.entries(details.headers)
          .filter(([name]) => name !== "Content-Length")
          .map(([name, value]) => [name, String(value)]),
      );
      await (await request(details.endpoint, { method: "POST", headers, body: details.body })).body.dump();
    }
  };
  await Promise.all(Array.from({ length: DEFAULT_LIMITS.concurrency }, worker));
}

async function main(): Promise<void> {
  const receiver = forkChild(import.meta.dirname, "push.ts", { args: ["--receiver"] });
  const { port } = await nextMessage(
    receiver,
    (m) => m as { port?: number },
    (m) => typeof m.port === "number",
  );
  const arrivals = (count: number) => {
    const answer = nextMessage(
      receiver,
      (m) => arrivalSchema.safeParse(m),
      (m) => m.success,
    );
    receiver.send({ expect: count });
    return answer.then((m) => m.data!.arrivals);
  };
  const dir = tempDir("bench-push-");
  const runtime = createRuntime({
    config: parseConfig({ push: { subject: SUBJECT, allow_insecure_endpoints: true } }),
    dataDir: dir,
    adminToken: "bench",
  });
  const { pairing, push } = runtime.ctx;
  const subscriptions: StoredSubscription[] = [];
  for (let i = 0; i < DEVICES; i++) {
    const device = pairing.redeem(pairing.createCode().code, `phone ${i}`);
    if (!device.ok) throw new Error(device.reason);
    const subscription = { ...subscriptionFor(port!, i), device_id: device.device_id };
    push!.changed(() => push!.subscriptions.save(subscription, 5));
    subscriptions.push(subscription);
  }
  const api = createNotificationApi(runtime.ctx.notifications, "bench");
  // The server's own pair, read from DATA_DIR: the baseline signs as the server does.
  const keys = ensureVapidKeys(dir);
  const server: number[] = [];
  const baseline: number[] = [];
  // Round 0 warms up (JIT, connections) and is not counted.
  for (let round = 0; round <= ROUNDS; round++) {
    const arrived = arrivals(DEVICES);
    const record = api.application.create({ key: `disk-${round}`, severity: "warning", title: "Disk almost full" });
    const committedAt = now();
    const serverArrivals = await arrived;
    const topic = topicOf(record.id);
    if (round > 0) server.push(...serverArrivals.filter((a) => a.topic === topic).map((a) => a.at - committedAt));

    const direct = arrivals(DEVICES);
    const directTopic = topicOf(`direct-${round}`);
    const startedAt = now();
    await postDirectly(subscriptions, keys, directTopic);
    const directArrivals = await direct;
    if (round > 0) baseline.push(...directArrivals.filter((a) => a.topic === directTopic).map((a) => a.at - startedAt));
  }
  if (server.length !== ROUNDS * DEVICES)
    throw new Error(`expected ${ROUNDS * DEVICES} pushes, ${server.length} arrived`);
  const round2 = (ms: number) => Math.round(ms * 100) / 100;
  console.log(
    JSON.stringify({
      bench: "push",
      pushes: server.length,
      devices: DEVICES,
      p50_ms: round2(percentile(server, 50)),
      p99_ms: round2(percentile(server, 99)),
      baseline_p50_ms: round2(percentile(baseline, 50)),
      baseline_p99_ms: round2(percentile(baseline, 99)),
      delivered: push!.queue.counts.delivered,
    }),
  );
  receiver.disconnect();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}

if (values.receiver) runReceiver();
else await main();
