// Assembles a running bridge: one HTTP server for /health, /metrics and the WebSocket upgrade at
// /socket/websocket, the router, the registry and an idle sweep. `close()` ends every socket with 1001 so apps and
// servers come back when a bridge is up again.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { BRIDGE_CLOSE } from "../client/wire/frames.ts";
import { Router } from "./channels/router.ts";
import { systemClock, type BridgeClock } from "./clock.ts";
import type { BridgeConfig } from "./config.ts";
import type { BridgeCore } from "./core.ts";
import { sha256Hex } from "./hash.ts";
import { httpHandler } from "./http/routes.ts";
import { jsonLogger, PeerLogBudget, type BridgeLogger } from "./log.ts";
import { BridgeMetrics } from "./metrics.ts";
import { AddressRateLimiter } from "./rate-limiter.ts";
import { decodeFrame } from "./protocol/serializer.ts";
import { SocketAdmission } from "./socket/admission.ts";
import { Connection } from "./socket/connection.ts";
import { chooseProtocol, readHandshake } from "./socket/handshake.ts";
import { DeviceSightings } from "./state/device-sightings.ts";
import { DurableStore } from "./state/durable-store.ts";
import { Registry } from "./state/registry.ts";

export interface BridgeOptions {
  config: BridgeConfig;
  clock?: BridgeClock;
  log?: BridgeLogger;
  /** How often idle sockets are looked for; tests call sweepIdle() themselves. 0 disables the timer. */
  sweepEveryMs?: number;
}

export interface RunningBridge {
  /** `ws://host:port/socket`, the endpoint the phoenix client is given. */
  url: string;
  httpUrl: string;
  port: number;
  core: BridgeCore;
  /** Reports devices' sockets to their servers (`devices_seen`); tests flush and sweep it themselves. */
  sightings: DeviceSightings;
  /** Closes sockets silent for longer than the idle timeout; returns how many. */
  sweepIdle(): number;
  close(): Promise<void>;
}

export async function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  // Every record naming a peer counts against that peer's budget: a peer decides how often it is refused.
  const log = new PeerLogBudget(options.log ?? jsonLogger(), clock, { linesPerPeer: config.logLinesPerPeer, windowMs: config.logWindowMs });
  const registry = new Registry(new DurableStore(config.dataDir), { events: config.replayEvents, bytes: config.replayBytes }, {
    onForeignGrant: ({ serverId, deviceId, owner }) => log.log("warn", "grant refused: token hash belongs to another server", { server_id: serverId, device_id: deviceId, owner }),
  });
  const metrics = new BridgeMetrics(() => registry.activeTopics, () => registry.connectedServers);
  // Pairing counts failed attempts only (limiterFailure below).
  const pairingLimiter = new AddressRateLimiter(clock, config.pairingFailuresPerAddress, config.pairingFailuresOverall, config.pairingWindowMs, config.pairingFailingAddresses);
  const core: BridgeCore = {
    config,
    clock,
    log,
    metrics,
    registry,
    pairingLimiter,
    limiterFailure(connection, reason) {
      pairingLimiter.record(connection.address);
      metrics.pairingFailures++;
      log.log("warn", "pairing attempt failed", { socket: connection.id, address: connection.address, reason });
    },
  };
  const router = new Router(core);
  const sightings = new DeviceSightings(registry);
  const admission = new SocketAdmission(config);
  const connections = new Set<Connection>();
  const http = createServer(httpHandler(metrics));
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxFrameBytes, handleProtocols: chooseProtocol, perMessageDeflate: false });
  let nextId = 1;

  http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Until ws takes the socket, nothing listens for its errors: a peer that resets the connection while we refuse
    // it would otherwise raise an uncaught ECONNRESET and end the process.
    socket.on("error", () => socket.destroy());
    const handshake = readHandshake(request);
    if (!handshake.ok) {
      refuseUpgrade(socket, handshake.status, handshake.problem);
      return;
    }
    const address = request.socket.remoteAddress ?? "unknown";
    const tokenHash = handshake.token === undefined ? undefined : sha256Hex(handshake.token);
    const identity = { address, deviceTokenHash: tokenHash !== undefined && registry.device(tokenHash) !== undefined ? tokenHash : undefined };
    const admitted = admission.check(identity);
    if (!admitted.ok) {
      metrics.socketsRefused++;
      log.log("warn", "socket refused", { address, status: admitted.status, problem: admitted.problem });
      refuseUpgrade(socket, admitted.status, admitted.problem);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const release = admission.opened(identity);
      const connection = new Connection(nextId++, ws, socket, handshake.vsn, address, tokenHash, metrics, config.maxBufferedBytes, clock.now());
      connections.add(connection);
      registry.trackSocket(connection);
      sightings.note(connection);
      metrics.socketsOpen++;
      metrics.socketsTotal++;
      wire(core, router, connection, ws, () => {
        release();
        connections.delete(connection);
        registry.untrackSocket(connection);
        sightings.note(connection);
        log.forgetSocket(connection.id);
        metrics.socketsOpen--;
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(config.port, config.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const sweepIdle = () => {
    const cutoff = clock.now() - config.idleTimeoutMs;
    let closed = 0;
    for (const connection of connections) {
      // A socket already closing waits for its close handshake (ws ends it after 30 s): not idle again.
      if (connection.closed || connection.lastSeen >= cutoff) continue;
      log.log("info", "idle socket closed", { socket: connection.id, address: connection.address });
      connection.close(BRIDGE_CLOSE.goingAway, "idle");
      closed++;
    }
    return closed;
  };
  const sweepEvery = options.sweepEveryMs ?? Math.min(5000, Math.max(1, Math.floor(config.idleTimeoutMs / 4)));
  // A bridge whose own loop stalled (a burst of pipelined events, a loaded machine) must not take its backlog for
  // silent peers: their heartbeats sit unread in the kernel. So the timer only queues the sweep for the check phase,
  // after the poll phase has read what peers sent, and skips a round when the loop was late (real time, whatever
  // the injected clock says) before or after queueing it. Before this, a stall longer than the idle timeout closed
  // live sockets with 1001.
  let lastTick = performance.now();
  const tick = () => {
    const queuedAt = performance.now();
    const stalled = queuedAt - lastTick > 2 * sweepEvery;
    lastTick = queuedAt;
    if (stalled) return;
    setImmediate(() => {
      if (performance.now() - queuedAt <= sweepEvery) sweepIdle();
    });
  };
  const sweeper = sweepEvery > 0 ? setInterval(tick, sweepEvery) : undefined;
  sweeper?.unref();
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;

  const close = async () => {
    if (sweeper) clearInterval(sweeper);
    // Servers hear of the devices seen so far before their channels close.
    sightings.flush();
    sightings.stop();
    for (const connection of connections) connection.close(BRIDGE_CLOSE.goingAway, "bridge shutting down");
    // Peers get a moment to answer the close frame; stragglers are cut off so shutdown never hangs.
    const deadline = setTimeout(() => wss.clients.forEach((ws) => ws.terminate()), 500);
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    await new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeAllConnections();
    clearTimeout(deadline);
  };
  return { url: `ws://${host}:${port}/socket`, httpUrl: `http://${host}:${port}`, port, core, sightings, sweepIdle, close };
}

/** Answers an upgrade request with a plain HTTP status instead of a WebSocket. */
function refuseUpgrade(socket: Duplex, status: number, problem: string): void {
  socket.end(`HTTP/1.1 ${status} ${problem}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** Connects one ws to the router: every frame is size-checked (by ws), parsed, validated, then routed. */
function wire(core: BridgeCore, router: Router, connection: Connection, ws: WebSocket, onGone: () => void): void {
  const { log, metrics, clock } = core;
  ws.on("message", (data: RawData, isBinary: boolean) => {
    connection.lastSeen = clock.now();
    metrics.framesIn++;
    if (connection.closed) return;
    const decoded = isBinary ? { ok: false as const, problem: "binary frames are not spoken here" } : decodeFrame(data.toString(), connection.vsn);
    if (!decoded.ok) {
      metrics.badFrames++;
      log.log("warn", "malformed frame", { socket: connection.id, address: connection.address, problem: decoded.problem });
      connection.close(BRIDGE_CLOSE.invalidFrame, "malformed frame");
      return;
    }
    try {
      router.handle(connection, decoded.frame);
    } catch (error) {
      // A bug in one handler must not take the process (and everyone else's sockets) down.
      log.log("error", "frame handler failed", { socket: connection.id, error: error instanceof Error ? error.message : String(error) });
      connection.close(BRIDGE_CLOSE.internalError, "internal error");
    }
  });
  ws.on("error", (error: Error & { code?: string }) => {
    if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") metrics.badFrames++;
    log.log("warn", "socket error", { socket: connection.id, address: connection.address, code: error.code ?? null, problem: error.message });
  });
  ws.on("close", () => {
    connection.onClosed();
    onGone();
  });
}
