// The bridge under test in its own process, beside a raw `ws` broadcaster (the baseline) on another port.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { WebSocketServer, type WebSocket } from "ws";
import { startBridge } from "../../../bridge/bridge.ts";
import { defaultBridgeConfig, type BridgeConfig } from "../../../bridge/config.ts";
import { EventTopic } from "../../../bridge/fanout/topic.ts";
import type { BufferedEvent } from "../../../bridge/fanout/replay-buffer.ts";
import { processLog } from "../../../bridge/log.ts";
import type { Socket } from "node:net";
import { textFrame } from "../../../bridge/protocol/ws-frame.ts";
import { rawPacedBatched } from "./raw-batched.ts";
import { scheduleSlots } from "./schedule.ts";
import { phaseMeter, toBridgeChild, wallNow, type BridgeStats } from "./protocol.ts";

// BENCH_BRIDGE_CONFIG: JSON overrides of the bridge's config (e.g. more server registrations per address).
const overrides = JSON.parse(process.env.BENCH_BRIDGE_CONFIG ?? "{}") as Partial<BridgeConfig>;
const bridge = await startBridge({
  config: defaultBridgeConfig({ ...overrides, port: 0, dataDir: mkdtempSync(join(tmpdir(), "bench-bridge-")) }),
  log: processLog({ level: "error" }),
});
const raw = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
await new Promise<void>((resolve) => raw.once("listening", () => resolve()));
const rawPort = (raw.address() as { port: number }).port;
/** Each raw client's TCP socket, for the batched baseline (it writes frames itself, as the bridge does). */
const rawSockets = new Map<WebSocket, Socket>();
raw.on("connection", (ws, request) => {
  rawSockets.set(ws, request.socket as Socket);
  ws.once("close", () => rawSockets.delete(ws));
});
const send = (message: unknown) => process.send!(message);

// Instrumentation (the benchmark's only): how long after its commit an event reaches the broadcast, how long the
// broadcast takes, and how far behind the sockets' send buffers get.
const meter = phaseMeter();
let arrivals: number[] = [];
let durations: number[] = [];
let bufferedMax = 0;
const original = EventTopic.prototype.broadcast;
EventTopic.prototype.broadcast = function (this: EventTopic, event: BufferedEvent): void {
  const start = wallNow();
  const plain = event.forms.find((form) => form.mode === "plain")?.json ?? "";
  const at = plain.indexOf('"sent_at":');
  if (at >= 0) arrivals.push(start - Number.parseFloat(plain.slice(at + 10, at + 40)));
  original.call(this, event);
  // The writes leave in a microtask queued by the first send (Connection's uncork); this one runs after it.
  queueMicrotask(() => {
    durations.push(wallNow() - start);
    // A pass over every subscriber per event: the bridge's own work again, so only when the diagnostics are asked for.
    if (!process.env.BENCH_DIAG) return;
    const subscribers = (this as unknown as { memberOf: Map<{ bufferedAmount: number }, unknown> }).memberOf;
    for (const connection of subscribers.keys())
      if (connection.bufferedAmount > bufferedMax) bufferedMax = connection.bufferedAmount;
  });
};

const pct = (samples: number[], p: number) => {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
};

process.on("message", (message) => {
  const parsed = toBridgeChild.parse(message);
  if (parsed.type === "rss") {
    // BENCH_HEAP_DIR: a heap snapshot beside each RSS reading (before and after the sockets connect), to see what a
    // socket holds; it collects garbage first, so the RSS figures of such a run are not the benchmark's.
    const heapDir = process.env.BENCH_HEAP_DIR;
    if (heapDir) writeHeapSnapshot(join(heapDir, `bridge-${Date.now()}.heapsnapshot`));
    return send({ type: "rss", rss: process.memoryUsage().rss });
  }
  if (parsed.type === "phase") {
    meter.reset();
    arrivals = [];
    durations = [];
    bufferedMax = 0;
    return;
  }
  if (parsed.type === "stats") {
    const m = bridge.core.metrics;
    const stats: BridgeStats = {
      stats: meter.read(),
      arrival_p50_ms: pct(arrivals, 50),
      arrival_p99_ms: pct(arrivals, 99),
      broadcast_p50_ms: pct(durations, 50),
      broadcast_p99_ms: pct(durations, 99),
      buffered_max_bytes: bufferedMax,
      slow_consumer_drops: m.slowConsumerDrops,
      sockets: m.socketsOpen,
      events_relayed: m.eventsRelayed,
      duplicate_events: m.duplicateEvents,
      joins_ok: m.joinsOk,
      joins_refused: m.joinsRefused,
    };
    return send({ type: "stats", bridge: stats });
  }
  if (parsed.type === "raw_paced") {
    const paced = parsed.batched
      ? rawBatched(parsed.frames, parsed.rate, parsed.groups, parsed.bytes)
      : rawPaced(parsed.frames, parsed.rate, parsed.groups, parsed.bytes);
    return void paced.then(() => send({ type: "raw_done" }));
  }
  void rawBroadcast(parsed.frames, parsed.bytes).then(() => send({ type: "raw_done" }));
});

/** One baseline frame of about `bytes`, stamped `sentAt`. */
function rawFrame(i: number, bytes: number, sentAt: number): Buffer {
  return Buffer.from(
    JSON.stringify([
      null,
      null,
      "events:server:bench",
      "session_event",
      {
        event: {
          event_id: String(i).padStart(20, "0"),
          type: "bench",
          sent_at: sentAt,
          pad: "x".repeat(Math.max(0, bytes - 140)),
        },
      },
    ]),
  );
}

/** The baseline at a steady rate, on the same staggered schedule as the benchmark's servers (scheduleSlots). */
async function rawPaced(frames: number, rate: number, groups: number, bytes: number): Promise<void> {
  const clients = [...raw.clients] as WebSocket[];
  const members = Array.from({ length: groups }, (_, g) => clients.filter((_, k) => k % groups === g));
  // Stamped with the time the slot was due, not the time this loop got to it: the bridge's events are stamped at
  // their commit in another process, so a bridge loop that runs late counts against the bridge; a broadcaster loop
  // that runs late must count against the baseline too (stamped when sent, its lag was invisible).
  await scheduleSlots(frames * groups, rate * groups, (slot, dueAt) => {
    const frame = rawFrame(Math.floor(slot / groups), bytes, dueAt);
    for (const client of members[slot % groups]!) client.send(frame, { binary: false });
  });
}

/** The batched baseline (raw-batched.ts) on the same groups and schedule as rawPaced. */
function rawBatched(frames: number, rate: number, groups: number, bytes: number): Promise<void> {
  const clients = [...raw.clients] as WebSocket[];
  const members = Array.from({ length: groups }, (_, g) =>
    clients.filter((_, k) => k % groups === g).map((client) => rawSockets.get(client)!),
  );
  return rawPacedBatched(members, frames, rate, (index, dueAt) => textFrame(rawFrame(index, bytes, dueAt)));
}

/** The baseline: the same-size frame to every client, bytes encoded once, pausing only when buffers fill. */
async function rawBroadcast(frames: number, bytes: number): Promise<void> {
  const clients = [...raw.clients] as WebSocket[];
  for (let i = 0; i < frames; i++) {
    const frame = rawFrame(i, bytes, wallNow());
    for (const client of clients) client.send(frame, { binary: false });
    if (i % 20 === 19) {
      while (clients.some((client) => client.bufferedAmount > 1024 * 1024))
        await new Promise((resolve) => setTimeout(resolve, 1));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

send({ type: "ready", url: bridge.url, rawUrl: `ws://127.0.0.1:${rawPort}/socket` });
process.on("disconnect", () => void bridge.close().then(() => process.exit(0)));
