// Notification benchmark (issue 4). Prints one JSON line of medians over --rounds rounds:
//  - list_p99_ms: GET /application/notifications over real HTTP with 10,000 active and 100,000 terminal records
//    (to the last byte received), beside baseline_raw_send_same_bytes_p99_ms, a bare node:http server sending as
//    many bytes, and list_after_change_p99_ms, each list preceded by an update (the maintained view rebuilt);
//  - dismiss_per_s: service-level dismissals (each its own transaction with its event and a prune);
//  - update_by_key_per_s: producer update-by-key through the plugin API (validation, transaction, event);
//  - prune_ms_per_1000 at two active counts: deleting the 1,000 oldest terminal records above history_limit,
//    with 1,000 and with 10,000 active records present; the two figures should match (cost independent of
//    active records). Baseline in the same run: a raw `SELECT count(*)` over the active index, which does grow.
// Usage: node --import tsx scripts/bench/notifications.ts [--rounds 3]
import { rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import type { NotificationRecord } from "../../client/wire/notification.ts";
import { parseConfig } from "../../server/config/load.ts";
import { createNotificationApi } from "../../server/notifications/api.ts";
import { SqliteNotificationStore } from "../../server/notifications/sqlite-store.ts";
import { createRuntime, type Runtime } from "../../server/runtime.ts";
import { tempDir } from "../../test/support/server.ts";
import { median, percentile } from "./stats.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
const ROUNDS = Number(values.rounds);
const ACTIVE = 10_000;
const TERMINAL = 100_000;
const TOKEN = "bench-token";
const NOW = "2030-01-01T00:00:00.000Z";

function record(i: number, status: NotificationRecord["status"]): NotificationRecord {
  return {
    id: `n-${status}-${i}`,
    revision: 1,
    key: `${status}-${i}`,
    kind: "notification",
    status,
    severity: "info",
    title: `Notification ${i}`,
    body: "A body of ordinary length for a notification shown in a banner.",
    created_at: NOW,
    updated_at: NOW,
    source: { plugin: "bench" },
    display: { presentation: "banner" },
    retention: { version: 1, policy: "until_resolved" },
    model_visibility: "hidden",
  };
}

function seeded(
  active: number,
  terminal: number,
  historyLimit: number,
): { runtime: Runtime; store: SqliteNotificationStore; dir: string } {
  const dir = tempDir("bench-notifications-");
  const runtime = createRuntime({
    config: parseConfig({ application: { notifications: { history_limit: historyLimit } } }),
    dataDir: dir,
    adminToken: TOKEN,
  });
  const store = new SqliteNotificationStore(runtime.ctx.db, runtime.ctx.transactor);
  store.transaction(() => {
    for (let i = 0; i < terminal; i++) store.put(record(i, "dismissed"));
    for (let i = 0; i < active; i++) store.put(record(i, "pending"));
  });
  return { runtime, store, dir };
}

/** p99 of GET /application/notifications; `beforeEach` runs untimed before every request (a change, or nothing). */
async function listP99(address: string, beforeEach: (i: number) => void = () => {}): Promise<number> {
  const samples: number[] = [];
  // Timed to the last byte received: what the server and the loopback cost. Parsing 4 MB of JSON is the
  // receiver's own work (~10 ms in V8 whatever the server does), so the count is checked outside the timing.
  for (let i = 0; i < 110; i++) {
    beforeEach(i);
    const start = performance.now();
    const res = await fetch(`${address}/application/notifications`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const bytes = await res.arrayBuffer();
    if (i >= 10) samples.push(performance.now() - start);
    if (i === 0) {
      const records = JSON.parse(Buffer.from(bytes).toString("utf8")) as unknown[];
      if (records.length !== ACTIVE) throw new Error(`listed ${records.length}`);
    }
  }
  return percentile(samples, 99);
}

/** The physical floor: a bare node:http server sending a buffer of the same size over the same loopback. */
async function rawSendP99(size: number): Promise<number> {
  const body = Buffer.alloc(size, 0x20);
  const server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(body));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const samples: number[] = [];
  for (let i = 0; i < 110; i++) {
    const start = performance.now();
    await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer();
    if (i >= 10) samples.push(performance.now() - start);
  }
  await new Promise((resolve) => server.close(resolve));
  return percentile(samples, 99);
}

function rate(count: number, work: (i: number) => void): number {
  const start = performance.now();
  for (let i = 0; i < count; i++) work(i);
  return count / ((performance.now() - start) / 1000);
}

function pruneCost(active: number): { pruneMs: number; countMs: number } {
  const { runtime, store, dir } = seeded(active, TERMINAL, TERMINAL);
  // Five times: 1,000 more terminal records beyond the limit, then one prune removes exactly those.
  const samples: number[] = [];
  for (let rep = 1; rep <= 5; rep++) {
    store.transaction(() => {
      for (let i = TERMINAL * rep; i < TERMINAL * rep + 1000; i++) store.put(record(i, "dismissed"));
    });
    const start = performance.now();
    const removed = store.transaction(() => store.pruneTerminal(TERMINAL));
    samples.push(performance.now() - start);
    if (removed !== 1000) throw new Error(`pruned ${removed}`);
  }
  const pruneMs = median(samples);
  const countStart = performance.now();
  runtime.ctx.db.prepare("SELECT count(*) FROM application_notifications WHERE active = 1").get();
  const countMs = performance.now() - countStart;
  void runtime.close().then(() => rmSync(dir, { recursive: true, force: true }));
  return { pruneMs, countMs };
}

async function round() {
  const { runtime, dir } = seeded(ACTIVE, TERMINAL, TERMINAL);
  const hub = runtime.ctx.notifications;
  const api = createNotificationApi(runtime.ctx.notifications, "bench");
  const address = await runtime.app.listen({ host: "127.0.0.1", port: 0 });
  const list = await listP99(address);
  const size = (
    await (
      await fetch(`${address}/application/notifications`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).arrayBuffer()
  ).byteLength;
  const raw = await rawSendP99(size);
  const listAfterChange = await listP99(address, (i) =>
    api.application.updateByKey({ key: `pending-${i}`, severity: "info", title: `changed ${i}` }),
  );
  const updates = rate(5000, (i) =>
    api.application.updateByKey({ key: `pending-${i % ACTIVE}`, severity: "info", title: `update ${i}` }),
  );
  const dismisses = rate(2000, (i) => hub.application.dismiss(`n-pending-${i}`, {}));
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
  const few = pruneCost(1000);
  const many = pruneCost(10_000);
  return { list, raw, listAfterChange, updates, dismisses, few, many };
}

async function main() {
  const results: Array<Awaited<ReturnType<typeof round>>> = [];
  for (let r = 0; r < ROUNDS; r++) results.push(await round());
  const pick = (f: (x: (typeof results)[number]) => number) => Number(median(results.map(f)).toFixed(3));
  const line = {
    bench: "notifications",
    active: ACTIVE,
    terminal: TERMINAL,
    rounds: ROUNDS,
    list_p99_ms: pick((x) => x.list),
    list_after_change_p99_ms: pick((x) => x.listAfterChange),
    baseline_raw_send_same_bytes_p99_ms: pick((x) => x.raw),
    dismiss_per_s: Math.round(pick((x) => x.dismisses)),
    update_by_key_per_s: Math.round(pick((x) => x.updates)),
    prune_ms_per_1000_at_1000_active: pick((x) => x.few.pruneMs),
    prune_ms_per_1000_at_10000_active: pick((x) => x.many.pruneMs),
    baseline_count_active_ms_at_1000_active: pick((x) => x.few.countMs),
    baseline_count_active_ms_at_10000_active: pick((x) => x.many.countMs),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

await main();
