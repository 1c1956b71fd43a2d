// The bridge under test in its own process, beside a raw `ws` broadcaster (the baseline) on another port.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebSocketServer, type WebSocket } from "ws";
import { startBridge } from "../../../bridge/bridge.ts";
import { defaultBridgeConfig } from "../../../bridge/config.ts";
import { jsonLogger } from "../../../bridge/log.ts";
import { toBridgeChild } from "./protocol.ts";

const bridge = await startBridge({ config: defaultBridgeConfig({ port: 0, dataDir: mkdtempSync(join(tmpdir(), "bench-bridge-")) }), log: jsonLogger("error") });
const raw = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
await new Promise<void>((resolve) => raw.once("listening", () => resolve()));
const rawPort = (raw.address() as { port: number }).port;
const send = (message: unknown) => process.send!(message);

process.on("message", (message) => {
  const parsed = toBridgeChild.parse(message);
  if (parsed.type === "rss") return send({ type: "rss", rss: process.memoryUsage().rss });
  void rawBroadcast(parsed.frames, parsed.bytes).then(() => send({ type: "raw_done" }));
});

/** The baseline: the same-size frame to every client, bytes encoded once, pausing only when buffers fill. */
async function rawBroadcast(frames: number, bytes: number): Promise<void> {
  const clients = [...raw.clients] as WebSocket[];
  for (let i = 0; i < frames; i++) {
    const frame = Buffer.from(JSON.stringify([null, null, "events:server:bench", "session_event", { event: { event_id: String(i).padStart(20, "0"), type: "bench", sent_at: performance.timeOrigin + performance.now(), pad: "x".repeat(Math.max(0, bytes - 140)) } }]));
    for (const client of clients) client.send(frame, { binary: false });
    if (i % 20 === 19) {
      while (clients.some((client) => client.bufferedAmount > 1024 * 1024)) await new Promise((resolve) => setTimeout(resolve, 1));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

send({ type: "ready", url: bridge.url, rawUrl: `ws://127.0.0.1:${rawPort}/socket` });
process.on("disconnect", () => void bridge.close().then(() => process.exit(0)));
