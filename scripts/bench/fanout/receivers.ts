// Receivers in their own process: raw `ws` clients speaking the Phoenix protocol (join with a device token,
// heartbeat), counting deliveries and, in latency mode, the time from store commit (`sent_at`) to receipt.
import { WebSocket } from "ws";
import { phaseMeter, toReceivers, wallNow, type FromReceivers } from "./protocol.ts";
import { sentAtOfSealed, type ReceiverKey } from "./e2e.ts";

let mode: "latency" | "count" = "latency";
/** Set in e2e mode: pushes are sealed and latency needs them opened. */
let receiverKey: ReceiverKey | undefined;
let deliveries = 0;
let first = 0;
let last = 0;
let latencies: number[] = [];
const sockets: WebSocket[] = [];
const closes: Record<string, number> = {};
const meter = phaseMeter();
const send = (message: FromReceivers) => process.send!(message);

// Searched for as bytes: a string needle is re-encoded on every Buffer#indexOf call.
const EVENT_ID = Buffer.from('"event_id":"');
const SENT_AT = Buffer.from('"sent_at":');

/** Per socket: the newest event id seen in this phase; an id not above it is a duplicate or out of order. */
let lastIds = new Map<WebSocket, string>();
let misordered = 0;

function onFrame(ws: WebSocket, data: Buffer): void {
  // Heartbeat replies are ~60 bytes; events are ~300. Only events count.
  if (data.length < 120) return;
  const now = wallNow();
  deliveries++;
  if (first === 0) first = now;
  last = now;
  // A scan of the bytes instead of JSON.parse, the same for the bridge's frames and the raw baseline's: the
  // receivers must not be what the benchmark measures.
  const idAt = data.indexOf(EVENT_ID);
  if (idAt >= 0) {
    const id = data.toString("latin1", idAt + 12, idAt + 32);
    const previous = lastIds.get(ws);
    if (previous !== undefined && id <= previous) misordered++;
    lastIds.set(ws, id);
  }
  if (mode === "latency" && receiverKey) {
    const sentAt = sentAtOfSealed(data, receiverKey);
    if (sentAt !== undefined) latencies.push(now - sentAt);
  } else if (mode === "latency") {
    const at = data.indexOf(SENT_AT);
    if (at >= 0) latencies.push(now - Number.parseFloat(data.toString("latin1", at + 10, at + 40)));
  }
}

/** Connections opened at once: 10,000 simultaneous SYNs overflow the listen backlog and wait out SYN retries. */
const CONNECTING_AT_ONCE = 200;
/** Each socket heartbeats every 20 s (the bridge drops a socket silent for 60 s), spread over the period in ticks. */
const HEARTBEAT_PERIOD_MS = 20_000;
const HEARTBEAT_TICK_MS = 250;

async function connect(
  url: string,
  topic: string,
  topics: string[] | undefined,
  tokens: string[],
  join: boolean,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tokens.length) {
      const index = next++;
      await openWithRetries(url, topics?.[index] ?? topic, tokens[index]!, join);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECTING_AT_ONCE, tokens.length) }, worker));
  send({ type: "connected", sockets: sockets.length });
}

// Heartbeats round-robin, spread evenly instead of every socket's in one burst. How many are due follows the clock,
// not the ticks: a receiver loop delayed for seconds catches up instead of stretching the period past the bridge's
// 60 s idle timeout. It runs from the start, so sockets open while thousands still connect are not left silent.
const heartbeatsFrom = performance.now();
let heartbeatsSent = 0;
setInterval(() => {
  const count = sockets.length;
  if (count === 0) return;
  const due = Math.floor(((performance.now() - heartbeatsFrom) / HEARTBEAT_PERIOD_MS) * count);
  for (; heartbeatsSent < due; heartbeatsSent++) {
    const ws = sockets[heartbeatsSent % count]!;
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify([null, `hb${heartbeatsSent}`, "phoenix", "heartbeat", {}]));
  }
}, HEARTBEAT_TICK_MS).unref();

/** A loaded bridge may reset a connection while it accepts thousands: try again, a few times, then fail loudly. */
async function openWithRetries(url: string, topic: string, token: string, join: boolean): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open(url, topic, token, join);
    } catch (error) {
      if (attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

function open(url: string, topic: string, token: string, join: boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(`${url}/websocket?vsn=2.0.0&token=${encodeURIComponent(token)}`, {
      perMessageDeflate: false,
    });
    // An error before the open fails this attempt; after it, the close that follows is what counts.
    ws.on("error", (error) => reject(error));
    ws.on("close", (code: number) => void (closes[String(code)] = (closes[String(code)] ?? 0) + 1));
    ws.once("open", () => {
      sockets.push(ws);
      if (!join) return resolve();
      ws.send(JSON.stringify(["1", "1", topic, "phx_join", {}]));
      ws.once("message", () => {
        ws.on("message", (data: Buffer) => onFrame(ws, data));
        resolve();
      });
    });
    if (!join) ws.on("message", (data: Buffer) => onFrame(ws, data));
  });
}

process.on("message", (message) => {
  const parsed = toReceivers.parse(message);
  if (parsed.type === "connect") {
    receiverKey = parsed.e2e;
    return void connect(parsed.url, parsed.topic, parsed.topics, parsed.tokens, parsed.join);
  }
  if (parsed.type === "close") {
    // The sockets this process closes itself are not the far side's closes: the next set starts counting afresh.
    return void closeAll().then(() => {
      for (const code of Object.keys(closes)) delete closes[code];
      send({ type: "closed" });
    });
  }
  if (parsed.type === "mode") {
    mode = parsed.mode;
    deliveries = 0;
    first = 0;
    last = 0;
    latencies = [];
    lastIds = new Map();
    misordered = 0;
    meter.reset();
    return;
  }
  send({
    type: "report",
    deliveries,
    first,
    last,
    latencies: parsed.latencies === false ? [] : latencies,
    misordered,
    closes,
    stats: meter.read(),
  });
});
process.on("disconnect", () => process.exit(0));

/** Closes every socket and waits until they are gone (their descriptors free on both sides). */
async function closeAll(): Promise<void> {
  const open = sockets.splice(0);
  await Promise.all(
    open.map(
      (ws) =>
        new Promise<void>((resolve) =>
          ws.readyState === ws.CLOSED ? resolve() : (ws.once("close", () => resolve()), ws.terminate()),
        ),
    ),
  );
}
